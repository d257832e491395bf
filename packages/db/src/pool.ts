import pg from "pg";
import type { PoolStats } from "@rehook/core";
import { SESSION_SETTINGS_SQL } from "./session-settings.js";

export type Pool = pg.Pool;
export type PoolClient = pg.PoolClient;

export interface PoolOptions {
  databaseUrl: string;
  max?: number;
  onError?: (error: Error) => void;
}

/**
 * The raw connection pool for hot paths (group-commit capture, health checks).
 * Connect attempts time out quickly so an unreachable database becomes a 503, not a hang.
 */
export function createPool(options: PoolOptions): Pool {
  const pool = new pg.Pool({
    connectionString: options.databaseUrl,
    max: options.max ?? 10,
    connectionTimeoutMillis: 5_000,
    idleTimeoutMillis: 30_000,
    query_timeout: 30_000,
    application_name: "rehook",
    // pg-pool awaits the promise returned before it hands a new client out; a failure fails that connect.
    onConnect: (client: pg.ClientBase) => client.query(SESSION_SETTINGS_SQL),
  });
  // An idle client that loses its server emits here; without a listener the process would crash.
  pool.on("error", (error) => options.onError?.(error));

  return pool;
}

/** True when the database answers a trivial query within the timeout. */
export async function isDatabaseReachable(pool: Pool, timeoutMs = 2_000): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  const probe = pool.query("select 1").then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The pool's connections now (the metrics read it at scrape time: three fields, no query). */
export function poolStats(pool: Pool): PoolStats {
  return {
    inUse: pool.totalCount - pool.idleCount,
    idle: pool.idleCount,
    waiting: pool.waitingCount,
    max: pool.options.max ?? 10,
  };
}

const MIGRATION_LOCK_ID = 7_420_117; // any constant shared by every Rehook instance

/** Runs `work` while holding a cluster-wide advisory lock, so concurrent starts migrate one at a time. */
export async function withMigrationLock<T>(databaseUrl: string, work: () => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK_ID]);
    return await work();
  } finally {
    await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK_ID]).catch(() => undefined);
    await client.end().catch(() => undefined);
  }
}

/** Runs `work` in one transaction on a client of the pool: committed if it resolves, rolled back if it throws. */
export async function withTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  // A checked-out client has no listener of the pool's: a connection lost between two
  // statements (PostgreSQL restarting) would be an unhandled 'error' and end the process.
  // The statement under way fails on its own; the client is then destroyed, not reused.
  let lost: Error | undefined;
  const onLost = (error: Error) => {
    lost = error;
  };
  client.on("error", onLost);
  try {
    await client.query("begin");
    const result = await work(client);
    await client.query("commit");
    return result;
  } catch (error) {
    if (!lost) await client.query("rollback").catch(() => undefined);
    throw error;
  } finally {
    client.removeListener("error", onLost);
    client.release(lost);
  }
}
