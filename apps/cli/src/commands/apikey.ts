import type { Role } from "@rehook/core";
import { wireApiKey } from "@rehook/http";
import { createApiKey, settingsContracts } from "@rehook/services";
import { contractFields, contractFlags, fromFlags } from "../contract-options.js";
import { asMember, memberOptions } from "./as-member.js";
import { defineCommand } from "./define.js";

const contract = settingsContracts.createApiKeyContract;
const ROLE_FLAG = { role: "role" };
const ROLE_HELP = { role: "what the key may do in the team, at most the user's own role (default: developer)" };

export const apiKeyCreateCommand = defineCommand(
  ["apikey", "create"],
  {
    usage: "rehook apikey create --email <email> [--team <slug>] [--name <name>] [--role <role>] [--json]",
    summary: "Create an API key of a team (developer role) for scripts and rehook listen. Prints the key's details, then the key itself alone on the last line (shown only now).",
    options: {
      ...memberOptions,
      name: { type: "string", description: "a label to tell keys apart (default: cli)" },
      ...contractFlags(contractFields(contract), ROLE_FLAG, ROLE_HELP),
      json: { type: "boolean", description: "print one JSON object, the key in its \"key\" field" },
    },
  } as const,
  async (options, context) => {
    const { role } = fromFlags(contractFields(contract), ROLE_FLAG, options) as { role?: Role };
    const created = await asMember(context, options, contract, ({ orm }, actor) => createApiKey({ orm }, actor, { name: options.name ?? "cli", role }));
    const { key } = created;
    const apiKey = wireApiKey(created.apiKey);
    if (options.json) return { ...apiKey, key };
    context.stdout.write(`${JSON.stringify(apiKey)}\n${key}\n`);
    return undefined;
  },
);
