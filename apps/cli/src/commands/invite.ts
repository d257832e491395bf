import type { Role } from "@rehook/core";
import { wireInvite } from "@rehook/http";
import { createInvite, settingsContracts } from "@rehook/services";
import { contractFields, contractFlags, fromFlags } from "../contract-options.js";
import { serverConfig } from "../env.js";
import { asMember, memberOptions } from "./as-member.js";
import { defineCommand } from "./define.js";

const contract = settingsContracts.createInviteContract;
const ROLE_FLAG = { role: "role" };
const ROLE_HELP = { role: "the role the link gives in the team, at most the inviter's own (default: developer)" };

export const inviteCreateCommand = defineCommand(
  ["invite", "create"],
  {
    usage: "rehook invite create --email <admin email> [--team <slug>] [--role <role>] [--json]",
    summary:
      "Make a one-time link, valid for 7 days, that adds its user to a team (admin role); signed out, it signs up first where SIGNUP lets this admin's links create accounts (creates_accounts; docs/accounts.md). Prints its details, then the link alone on the last line (shown only now).",
    options: {
      ...memberOptions,
      email: { type: "string", required: true, description: "the email of the team admin the invite is from" },
      ...contractFlags(contractFields(contract), ROLE_FLAG, ROLE_HELP),
      json: { type: "boolean", description: "print one JSON object, the link in its \"url\" field" },
    },
  } as const,
  async (options, context) => {
    const { role } = fromFlags(contractFields(contract), ROLE_FLAG, options) as { role?: Role };
    // The link is the running server's (its BASE_URL, else where it listens) unless BASE_URL is set here.
    const { baseUrl, signup } = serverConfig(context.config);
    const created = await asMember(context, options, contract, ({ orm }, actor) => createInvite({ orm, baseUrl, signup }, actor, { role }));
    const { url } = created;
    // Whether the link may sign someone up under SIGNUP, and if not, the sentence that says so.
    const invite = { ...wireInvite(created.invite), creates_accounts: created.createsAccounts, ...(created.note ? { note: created.note } : {}) };
    if (options.json) return { ...invite, url };
    context.stdout.write(`${JSON.stringify(invite)}\n${url}\n`);
    return undefined;
  },
);
