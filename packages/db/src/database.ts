import { startEmbeddedPostgres } from "./embedded-postgres.js";
import { createOrm, migrate, type Orm } from "./orm.js";
import { withMigrationLock } from "./pool.js";
import { waitForDatabase, type DatabaseWait } from "./wait-for-database.js";

export interface DatabaseOptions {
  /** An external PostgreSQL; without it an embedded server runs with its data under dataDir. */
  databaseUrl?: string | undefined;
  dataDir: string;
  ormPoolSize?: number;
  /** Apply pending migrations before returning (rehook start, rehook migrate). */
  migrate?: boolean;
  log?: (message: string) => void;
  /** An external database that is down, starting or stopping is waited for this long (DATABASE_WAIT_MS); without it, one try. */
  wait?: DatabaseWait;
}

export interface Database {
  url: string;
  orm: Orm;
  /** Names of the migrations this call applied. */
  applied: string[];
  close(): Promise<void>;
  /**
   * Leaves without waiting for the connections in use (a second Ctrl-C): the embedded server
   * stops now unless another process still uses it; an external one is left as it is.
   */
  closeNow(): Promise<void>;
}

/** Connects to the configured PostgreSQL (starting or reusing the embedded one) and opens MikroORM. */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const embedded = options.databaseUrl
    ? undefined
    : await startEmbeddedPostgres({ dataDir: options.dataDir, ...(options.log ? { log: options.log } : {}) });
  const url = options.databaseUrl ?? embedded!.url;
  // The embedded server is ready once started; an external one may be restarting right now.
  if (options.databaseUrl) await waitForDatabase(url, options.wait ?? { timeoutMs: 0 });
  try {
    const orm = await createOrm({ databaseUrl: url, poolSize: options.ormPoolSize ?? 5 });
    try {
      const applied = options.migrate ? await withMigrationLock(url, () => migrate(orm)) : [];
      return {
        url,
        orm,
        applied,
        async close() {
          await orm.close(true);
          await embedded?.stop();
        },
        async closeNow() {
          await embedded?.stop();
        },
      };
    } catch (error) {
      await orm.close(true);
      throw error;
    }
  } catch (error) {
    await embedded?.stop();
    throw error;
  }
}
