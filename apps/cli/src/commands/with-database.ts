import { ConfigError } from "@rehook/core";
import { openDatabase, type Database } from "@rehook/db";
import { databaseLine, hasEmbeddedDatabase } from "../database-in-use.js";
import type { CommandContext } from "./types.js";

/**
 * --init: create the embedded database when the data directory has none. Only `rehook user
 * create` offers it: every other command needs a user, which a new database does not have yet
 * (`rehook migrate` and `rehook start` create the database anyway).
 */
export const initOption = {
  init: { type: "boolean", description: "create the embedded database if the data directory has none yet (without it the command refuses)" },
} as const;

export interface DatabaseUse {
  /** Create the embedded database when the data directory has none (--init; rehook migrate always). */
  init?: boolean;
}

/**
 * Opens the configured database for one CLI command (migrating it first) and always closes it.
 * It says on stderr which database it is, and refuses an empty data directory unless told to
 * make one: run from another folder, the command would otherwise set up a second database
 * there, and a user created in it could never log in to the running server.
 */
export async function withDatabase<T>(context: CommandContext, work: (database: Database) => Promise<T>, use: DatabaseUse = {}): Promise<T> {
  const { config } = context;
  if (!config.databaseUrl && !use.init && !(await hasEmbeddedDatabase(config.dataDir))) {
    throw new ConfigError(
      `${config.dataDir} holds no database yet: run this where rehook start runs, or set REHOOK_DATA_DIR to its data directory (rehook user create --init makes a new database here)`,
    );
  }
  // Quiet when LOG_LEVEL asks for warnings only: scripts that set it get their output alone.
  if (config.logLevel === "info" || config.logLevel === "debug") process.stderr.write(`${databaseLine(config)}\n`);
  const database = await openDatabase({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    ormPoolSize: 2,
    migrate: true,
    log: (message) => context.logger.debug(message),
    wait: { timeoutMs: config.databaseWaitMs, log: (message) => context.logger.warn(message) },
  });
  try {
    return await work(database);
  } finally {
    await database.close();
  }
}
