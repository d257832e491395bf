import { createUser } from "@rehook/services";
import { defineCommand } from "./define.js";
import { withDatabase } from "./with-database.js";

export const userCreateCommand = defineCommand(
  ["user", "create"],
  {
    usage: "rehook user create --email <email> --password <password>",
    summary: "Create a dashboard user. Prints {id, email} as JSON.",
    options: {
      email: { type: "string", required: true, description: "the user's email address" },
      password: { type: "string", required: true, description: "at least 8 characters" },
    },
  } as const,
  (options, context) => withDatabase(context, ({ orm }) => createUser({ orm }, options)),
);
