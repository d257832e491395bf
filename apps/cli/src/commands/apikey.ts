import { wireApiKey } from "@rehook/http";
import { createApiKey, requireUserByEmail } from "@rehook/services";
import { defineCommand } from "./define.js";
import { withDatabase } from "./with-database.js";

export const apiKeyCreateCommand = defineCommand(
  ["apikey", "create"],
  {
    usage: "rehook apikey create --email <email> [--name <name>] [--json]",
    summary: "Create an API key for a user. Prints the key's details, then the key itself alone on the last line (shown only now).",
    options: {
      email: { type: "string", required: true, description: "the owner's email" },
      name: { type: "string", description: "a label to tell keys apart (default: cli)" },
      json: { type: "boolean", description: "print one JSON object, the key in its \"key\" field" },
    },
  } as const,
  async (options, context) => {
    const created = await withDatabase(context, async ({ orm }) => {
      const user = await requireUserByEmail({ orm }, options.email);
      return createApiKey({ orm }, { userId: user.id, name: options.name ?? "cli" });
    });
    const { key } = created;
    const apiKey = wireApiKey(created.apiKey);
    if (options.json) return { ...apiKey, key };
    context.stdout.write(`${JSON.stringify(apiKey)}\n${key}\n`);
    return undefined;
  },
);
