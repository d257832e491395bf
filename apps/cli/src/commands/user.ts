import { wireUser } from "@rehook/http";
import { createUser } from "@rehook/services";
import { defineCommand } from "./define.js";
import { initOption, withDatabase } from "./with-database.js";

export const userCreateCommand = defineCommand(
  ["user", "create"],
  {
    usage: "rehook user create --email <email> --password <password> [--admin]",
    summary: "Create a dashboard user (whatever SIGNUP says). Prints {id, email, is_admin} as JSON.",
    options: {
      email: { type: "string", required: true, description: "the user's email address" },
      password: { type: "string", required: true, description: "at least 8 characters" },
      admin: { type: "boolean", description: "may make invite links (the first user of a server is an admin anyway)" },
      ...initOption,
    },
  } as const,
  (options, context) =>
    withDatabase(context, ({ orm }) => createUser({ orm }, { email: options.email, password: options.password, isAdmin: options.admin }).then(wireUser), options),
);
