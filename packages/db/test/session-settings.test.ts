import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../tooling/vitest/src/postgres.js";
import { createOrm, createPool, type Orm, type Pool } from "../src/index.js";

let db: TestDatabase;
let orm: Orm;
let pool: Pool;

/** Costed far above every JIT threshold (25 million); a JIT-enabled session compiles it. */
const EXPENSIVE = "explain select count(*) from generate_series(1, 10000000) g, generate_series(1, 100) h where g + h > 5";

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await createOrm({ databaseUrl: db.url, poolSize: 2 });
  pool = createPool({ databaseUrl: db.url, max: 3 });
});
afterAll(async () => {
  await pool.end();
  await orm.close(true);
  await db.drop();
});

/** Runs `work` on `count` connections of the raw pool at once, so each is a different session. */
async function onEachConnection<T>(count: number, work: (query: (sql: string) => Promise<Array<Record<string, string>>>) => Promise<T>): Promise<T[]> {
  const clients = await Promise.all(Array.from({ length: count }, () => pool.connect()));
  try {
    return await Promise.all(clients.map((client) => work(async (sql) => (await client.query(sql)).rows)));
  } finally {
    for (const client of clients) client.release();
  }
}

describe("Rehook's database sessions", () => {
  it("have JIT off on every connection of the raw pool", async () => {
    const settings = await onEachConnection(3, async (query) => (await query("show jit"))[0]!.jit);
    expect(settings).toEqual(["off", "off", "off"]);
  });

  it("have JIT off on MikroORM's connections", async () => {
    const settings = await Promise.all([1, 2].map(() => orm.em.fork().getConnection().execute<Array<{ jit: string }>>("show jit")));
    expect(settings.map((rows) => rows[0]!.jit)).toEqual(["off", "off"]);
  });

  it("never plan JIT compilation, even for a statement costed past every threshold", async () => {
    // On a server built with LLVM (TEST_DATABASE_URL at a distribution's PostgreSQL) the plan would end in a "JIT:" section.
    const [plan] = await onEachConnection(1, async (query) => (await query(EXPENSIVE)).map((row) => row["QUERY PLAN"]).join("\n"));
    expect(plan).toContain("Aggregate");
    expect(plan).not.toContain("JIT");
    const ormPlan = await orm.em.fork().getConnection().execute<Array<{ "QUERY PLAN": string }>>(EXPENSIVE);
    expect(ormPlan.map((row) => row["QUERY PLAN"]).join("\n")).not.toContain("JIT");
  });
});
