import { adoptTeam, createTeam, listTeams, requireUserByEmail } from "@rehook/services";
import { renderTable } from "../output/table.js";
import { TEAM_COLUMNS, wireMembership, wireTeam } from "../output/teams.js";
import { defineCommand } from "./define.js";
import { withDatabase } from "./with-database.js";

export const teamCreateCommand = defineCommand(
  ["team", "create"],
  {
    usage: "rehook team create --email <owner email> --name <name>",
    summary: "Create a team owned by a user (its slug is made from the name), made by the operator: it may be OIDC_DEFAULT_TEAM, and with SIGNUP=invite its admins' invite links create accounts. Prints {id, name, slug} as JSON.",
    options: {
      email: { type: "string", required: true, description: "the email of the user who owns the new team" },
      name: { type: "string", required: true, description: "the team's name, up to 100 characters" },
    },
  } as const,
  (options, context) =>
    withDatabase(context, async ({ orm }) => {
      const owner = await requireUserByEmail({ orm }, options.email);
      // The server's host: an operator's team, which single sign-on's OIDC_DEFAULT_TEAM may name.
      return wireTeam(await createTeam({ orm }, { userId: owner.id, name: options.name, byOperator: true }));
    }),
);

export const teamAdoptCommand = defineCommand(
  ["team", "adopt"],
  {
    usage: "rehook team adopt --slug <slug>",
    summary:
      "Mark an existing shared team as the operator's, so that OIDC_DEFAULT_TEAM may name it and, with SIGNUP=invite, its admins' invite links create accounts (check its members first: rehook member list). Prints {id, name, slug} as JSON.",
    options: {
      slug: { type: "string", required: true, description: "the team's slug" },
    },
  } as const,
  (options, context) => withDatabase(context, ({ orm }) => adoptTeam({ orm }, { slug: options.slug })),
);

export const teamListCommand = defineCommand(
  ["team", "list"],
  {
    usage: "rehook team list --email <email> [--json]",
    summary: "List a user's teams with their role in each, their personal team first: a table, or with --json {data: [{id, name, slug, role, personal}]}.",
    options: {
      email: { type: "string", required: true, description: "the user's email" },
      json: { type: "boolean", description: "print the teams as JSON, for scripts" },
    },
  } as const,
  async (options, context) => {
    const teams = await withDatabase(context, async ({ orm }) => listTeams({ orm }, { userId: (await requireUserByEmail({ orm }, options.email)).id }));
    if (options.json) return { data: teams.map(wireMembership) };
    if (teams.length === 0) {
      context.stdout.write("No teams: this user left every team. Create one with rehook team create.\n");
      return undefined;
    }
    context.stdout.write(`${renderTable(teams, TEAM_COLUMNS, context.client.color)}\n`);
    return undefined;
  },
);
