import { wireUser } from "@rehook/http";
import { createUser } from "@rehook/services";
import { defineCommand } from "./define.js";
import { initOption, withDatabase } from "./with-database.js";

export const userCreateCommand = defineCommand(
  ["user", "create"],
  {
    usage: "rehook user create --email <email> --password <password> [--admin]",
    summary: "Create a dashboard user (whatever SIGNUP says) with their personal team, which they own. Prints {id, email, is_admin} as JSON.",
    options: {
      email: { type: "string", required: true, description: "the user's email address" },
      password: { type: "string", required: true, description: "at least 8 characters" },
      admin: { type: "boolean", description: "mark the user as a server admin (the first user of a server is one anyway); invites need the admin role in a team, not this" },
      ...initOption,
    },
  } as const,
  (options, context) =>
    withDatabase(context, ({ orm }) => createUser({ orm }, { email: options.email, password: options.password, isAdmin: options.admin }).then(wireUser), options),
);
