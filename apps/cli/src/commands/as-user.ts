import type { Database } from "@rehook/db";
import { requireUserByEmail } from "@rehook/services";
import type { CommandContext } from "./types.js";
import { withDatabase, type DatabaseUse } from "./with-database.js";

/** Runs `work` for the user with this email (the actor of `--email`), on a freshly opened database (`use`: see --init). */
export function asUser<T>(context: CommandContext, email: string, work: (database: Database, userId: string) => Promise<T>, use: DatabaseUse = {}): Promise<T> {
  return withDatabase(context, async (database) => work(database, (await requireUserByEmail({ orm: database.orm }, email)).id), use);
}
