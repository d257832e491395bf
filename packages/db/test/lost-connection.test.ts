import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../../../tooling/vitest/src/postgres.js";
import { createPool, withTransaction, type Pool } from "../src/index.js";

// PostgreSQL restarting (or an administrator ending a backend) cuts the connections in use.
// A transaction whose connection is cut between two statements fails, and the process
// goes on: no unhandled 'error' event (vitest fails the file on one), and the pool serves
// the next transaction on a new connection.

let db: TestDatabase;
let pool: Pool;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ databaseUrl: db.url, max: 2 });
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

describe("a transaction whose connection is cut", () => {
  it("fails, leaves the process running, and the next transaction gets a working connection", async () => {
    const outcome = withTransaction(pool, async (client) => {
      const { rows } = await client.query<{ pid: number }>("select pg_backend_pid() as pid");
      // The termination arrives while this client is idle in its transaction. Listen before
      // terminating: the client may see it end before pg_terminate_backend's own answer arrives.
      const ended = new Promise<void>((resolve) => client.once("end", () => resolve()));
      await db.query("select pg_terminate_backend($1)", [rows[0]!.pid]);
      await ended;
      await client.query("select 1");
    });
    await expect(outcome).rejects.toThrow();
    const answer = await withTransaction(pool, async (client) => (await client.query<{ n: number }>("select 41 + 1 as n")).rows[0]!.n);
    expect(answer).toBe(42);
  });
});
