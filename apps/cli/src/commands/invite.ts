import { wireInvite } from "@rehook/http";
import { createInvite, requireUserByEmail } from "@rehook/services";
import { serverConfig } from "../env.js";
import { defineCommand } from "./define.js";
import { withDatabase } from "./with-database.js";

export const inviteCreateCommand = defineCommand(
  ["invite", "create"],
  {
    usage: "rehook invite create --email <admin email> [--json]",
    summary: "Make a one-time invite link (SIGNUP=invite) as an admin. Prints its details, then the link alone on the last line (shown only now).",
    options: {
      email: { type: "string", required: true, description: "the email of the admin the invite is from" },
      json: { type: "boolean", description: "print one JSON object, the link in its \"url\" field" },
    },
  } as const,
  async (options, context) => {
    // The link is the running server's (its BASE_URL, else where it listens) unless BASE_URL is set here.
    const { baseUrl } = serverConfig(context.config);
    const created = await withDatabase(context, async ({ orm }) => {
      const admin = await requireUserByEmail({ orm }, options.email);
      return createInvite({ orm, baseUrl }, { userId: admin.id });
    });
    const { url } = created;
    const invite = wireInvite(created.invite);
    if (options.json) return { ...invite, url };
    context.stdout.write(`${JSON.stringify(invite)}\n${url}\n`);
    return undefined;
  },
);
