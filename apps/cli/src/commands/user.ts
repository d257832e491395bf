import { createUser } from "@rehook/services";
import { helpText, parseOptions } from "../args.js";
import type { Command } from "./types.js";
import { printJson, withDatabase } from "./with-database.js";

const createSpec = {
  usage: "rehook user create --email <email> --password <password>",
  summary: "Create a dashboard user. Prints {id, email} as JSON.",
  options: {
    email: { type: "string", required: true, description: "the user's email address" },
    password: { type: "string", required: true, description: "at least 8 characters" },
  },
} as const;

export const userCreateCommand: Command = {
  path: ["user", "create"],
  summary: createSpec.summary,
  async run(argv, context) {
    const options = parseOptions(createSpec, argv);
    if (options === "help") {
      context.stdout.write(`${helpText(createSpec)}\n`);
      return 0;
    }
    const user = await withDatabase(context, ({ orm }) => createUser({ orm }, options));
    printJson(context, user);
    return 0;
  },
};
