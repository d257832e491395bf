import { defineCommand } from "./define.js";
import { withDatabase } from "./with-database.js";

export const migrateCommand = defineCommand(
  ["migrate"],
  { usage: "rehook migrate", summary: "Apply pending database migrations.", options: {} },
  // Creating the database is what migrate is for: no --init needed.
  async (_options, context) => ({ applied: await withDatabase(context, async (database) => database.applied, { init: true }) }),
);
