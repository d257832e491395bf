import { openDatabase, type Database } from "@rehook/db";
import type { CommandContext } from "./types.js";

/** Opens the configured database for one CLI command (migrating it first) and always closes it. */
export async function withDatabase<T>(context: CommandContext, work: (database: Database) => Promise<T>): Promise<T> {
  const database = await openDatabase({
    databaseUrl: context.config.databaseUrl,
    dataDir: context.config.dataDir,
    ormPoolSize: 2,
    migrate: true,
    log: (message) => context.logger.debug(message),
  });
  try {
    return await work(database);
  } finally {
    await database.close();
  }
}
