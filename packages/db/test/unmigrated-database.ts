import { afterAll, beforeAll } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../tooling/vitest/src/postgres.js";
import { createOrm, createPool, type Orm, type Pool } from "../src/index.js";

/** What an upgrade test file works on: an empty database it migrates step by step itself. */
export interface UnmigratedDatabase {
  db: TestDatabase;
  /** Its migrator takes the database up to the schema before the change under test, then past it. */
  orm: Orm;
  /** A raw pool, for the files that store rows with today's statements (only with `poolMax`). */
  pool: Pool;
}

/**
 * Opens an empty database for the file (before its tests) and drops it after them; its
 * handle's members are set once the file's tests start.
 */
export function unmigratedDatabase(options: { ormPoolSize?: number; poolMax?: number } = {}): UnmigratedDatabase {
  const handle = {} as UnmigratedDatabase;
  beforeAll(async () => {
    handle.db = await createTestDatabase({ migrated: false });
    handle.orm = await createOrm({ databaseUrl: handle.db.url, poolSize: options.ormPoolSize ?? 1 });
    if (options.poolMax) handle.pool = createPool({ databaseUrl: handle.db.url, max: options.poolMax });
  });
  afterAll(async () => {
    await handle.pool?.end();
    await handle.orm?.close(true);
    await handle.db?.drop();
  });
  return handle;
}
