import { helpText, parseOptions } from "../args.js";
import type { Command } from "./types.js";
import { printJson, withDatabase } from "./with-database.js";

const spec = { usage: "rehook migrate", summary: "Apply pending database migrations.", options: {} };

export const migrateCommand: Command = {
  path: ["migrate"],
  summary: spec.summary,
  async run(argv, context) {
    if (parseOptions(spec, argv) === "help") {
      context.stdout.write(`${helpText(spec)}\n`);
      return 0;
    }
    const applied = await withDatabase(context, async (database) => database.applied);
    printJson(context, { applied });
    return 0;
  },
};
