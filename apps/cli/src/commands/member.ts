import { isRole, ROLES, UserError, type Role } from "@rehook/core";
import { addTeamMember, listTeamMembers, removeTeamMember, setTeamMemberRole, type MemberChange, type Orm, type Team } from "@rehook/db";
import { listMembers, recordOperatorAudit, requireUserByEmail } from "@rehook/services";
import { UsageError } from "../cli-error.js";
import { renderTable } from "../output/table.js";
import { MEMBER_COLUMNS, wireMember } from "../output/teams.js";
import { defineCommand } from "./define.js";
import { requireTeam } from "./team-admin.js";
import { withDatabase } from "./with-database.js";

// Operator tools (see team-admin.ts): they act on any team, with no role of their own.

const team = { type: "string", required: true, description: "the team's slug (rehook team list shows it)" } as const;

function roleOption(value: string): Role {
  if (!isRole(value)) throw new UsageError(`--role must be one of ${ROLES.join(", ")}`);
  return value;
}

/** The user of this email with their role in the team (null: not a member). */
async function memberOf(orm: Orm, teamRow: Team, email: string): Promise<{ userId: string; email: string; role: Role | null }> {
  const user = await requireUserByEmail({ orm }, email);
  const current = (await listTeamMembers(orm.em.fork(), teamRow.id)).find((member) => member.userId === user.id);
  return { userId: user.id, email: user.email, role: current?.role ?? null };
}

/** Refuses a change the team's last owner would not survive, saying what to do first. */
function requireKept(change: MemberChange, email: string, teamRow: Team): asserts change is Extract<MemberChange, { outcome: "done" }> {
  if (change.outcome === "last_owner") {
    throw new UserError(
      "conflict",
      `${email} is the last owner of ${teamRow.slug}, and a team always keeps at least one owner. Make another member an owner first (rehook member add --team ${teamRow.slug} --email OTHER --role owner).`,
    );
  }
  if (change.outcome === "not_member") throw new UserError("not_found", `${email} is not a member of ${teamRow.slug}. List its members with rehook member list --team ${teamRow.slug}.`);
}

export const memberAddCommand = defineCommand(
  ["member", "add"],
  {
    usage: "rehook member add --team <slug> --email <email> --role viewer|developer|admin|owner",
    summary: "Add an existing user to a team with a role; a member already there gets the new role. Prints {team, email, role, previous_role} as JSON.",
    options: {
      team,
      email: { type: "string", required: true, description: "the user's email (create the user first with rehook user create)" },
      role: { type: "string", required: true, description: `what they may do in the team (${ROLES.join(", ")})` },
    },
  } as const,
  (options, context) => {
    const role = roleOption(options.role);
    return withDatabase(context, async ({ orm }) => {
      const teamRow = await requireTeam(orm, options.team);
      const member = await memberOf(orm, teamRow, options.email);
      const target = { type: "member" as const, id: member.userId, name: member.email };
      await orm.em.fork().transactional(async (em) => {
        if (member.role === null) {
          await addTeamMember(em, teamRow.id, member.userId, role);
          await recordOperatorAudit(em, { teamId: teamRow.id, action: "member.add", target, changes: { role } });
        } else if (member.role !== role) {
          requireKept(await setTeamMemberRole(em, teamRow.id, member.userId, role), member.email, teamRow);
          await recordOperatorAudit(em, { teamId: teamRow.id, action: "member.role_change", target, changes: { role: { before: member.role, after: role } } });
        }
      });
      return { team: teamRow.slug, email: member.email, role, previous_role: member.role };
    });
  },
);

export const memberListCommand = defineCommand(
  ["member", "list"],
  {
    usage: "rehook member list --team <slug> [--json]",
    summary:
      "List a team's members, owners first: email, role, when they joined and were last active, and their active API keys; --json prints {data: [{user_id, email, role, joined_at, last_active_at, active_keys}]}.",
    options: {
      team,
      json: { type: "boolean", description: "print the members as JSON, for scripts" },
    },
  } as const,
  async (options, context) => {
    const members = await withDatabase(context, async ({ orm }) => listMembers({ orm }, { teamId: (await requireTeam(orm, options.team)).id }));
    if (options.json) return { data: members.map(wireMember) };
    context.stdout.write(`${renderTable(members, MEMBER_COLUMNS, context.client.color)}\n`);
    return undefined;
  },
);

export const memberRemoveCommand = defineCommand(
  ["member", "remove"],
  {
    usage: "rehook member remove --team <slug> --email <email>",
    summary:
      "Remove a member from a team at once (their sessions, keys and streams lose it) and revoke the API keys they made for it; the last owner stays. Prints {team, removed, revoked_keys} as JSON.",
    options: {
      team,
      email: { type: "string", required: true, description: "the member's email" },
    },
  } as const,
  (options, context) =>
    withDatabase(context, async ({ orm }) => {
      const teamRow = await requireTeam(orm, options.team);
      const member = await memberOf(orm, teamRow, options.email);
      const change = await orm.em.fork().transactional(async (em) => {
        const removed = await removeTeamMember(em, teamRow.id, member.userId);
        requireKept(removed, member.email, teamRow);
        await recordOperatorAudit(em, { teamId: teamRow.id, action: "member.remove", target: { type: "member", id: member.userId, name: member.email }, changes: { role: member.role, revoked_keys: removed.revokedKeys } });
        return removed;
      });
      return { team: teamRow.slug, removed: member.email, revoked_keys: change.revokedKeys };
    }),
);
