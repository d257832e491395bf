import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { test } from "@rehook/vitest-config/fixtures";
import { closedPort } from "@rehook/vitest-config/closed-port";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { openDatabase } from "../src/database.js";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "../src/embedded-postgres.js";
import { waitForDatabase, type WaitClock } from "../src/wait-for-database.js";

// Issue 41 (3.2): a start while PostgreSQL restarts waits for it, within a bound, instead of
// exiting 1 with "the database system is shutting down" or "connection refused".

let dataDir: string;
let restarted: EmbeddedDatabase | undefined;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "rehook-db-wait-"));
});
afterAll(async () => {
  await restarted?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

/** A clock that jumps by each pause instead of sleeping, recording the pauses. */
function jumpingClock(): WaitClock & { pauses: number[] } {
  let now = 0;
  const pauses: number[] = [];
  return {
    pauses,
    now: () => now,
    sleep: async (ms) => {
      pauses.push(ms);
      now += ms;
    },
  };
}

describe("waiting for the database", { concurrent: true }, () => {
  test("a PostgreSQL that is down when the open begins and starts a moment later is waited for, and the wait is logged", { timeout: 120_000 }, async () => {
    const first = await startEmbeddedPostgres({ dataDir });
    const url = first.url;
    await first.stop();
    const lines: string[] = [];
    const opening = openDatabase({ databaseUrl: url, dataDir, wait: { timeoutMs: 60_000, log: (line) => lines.push(line) } });
    await waitFor(() => lines.some((line) => line.startsWith("waiting for the database at 127.0.0.1:")), "the wait to be logged");
    // The same data directory starts on the same port again (as after a restart).
    restarted = await startEmbeddedPostgres({ dataDir });
    expect(restarted.url).toBe(url);
    const database = await opening;
    expect((await database.orm.em.fork().execute<{ one: number }[]>("select 1 as one"))[0]!.one).toBe(1);
    await database.close();
    expect(lines.join("\n")).not.toContain(new URL(url).password);
    expect(lines.at(-1)).toMatch(/^the database at 127\.0\.0\.1:\d+\/\w+ answers after \d+\.\d s$/);
  });

  test("past the bound it gives up with one line, having paused 0.25 s, doubling up to 5 s", async () => {
    const port = await closedPort();
    const clock = jumpingClock();
    const lines: string[] = [];
    const error = await waitForDatabase(`postgres://rehook:secret@127.0.0.1:${port}/rehook`, { timeoutMs: 20_000, clock, log: (line) => lines.push(line) }).then(
      () => undefined,
      (failure: Error) => failure,
    );
    expect(error?.message).toBe(`the database at 127.0.0.1:${port}/rehook is not available after waiting 20 s (DATABASE_WAIT_MS=20000): connect ECONNREFUSED 127.0.0.1:${port}`);
    expect(clock.pauses).toEqual([250, 500, 1000, 2000, 4000, 5000, 5000, 2250]);
    // One line per reason, not one per attempt.
    expect(lines).toEqual([`waiting for the database at 127.0.0.1:${port}/rehook: connect ECONNREFUSED 127.0.0.1:${port}; trying again for up to 20 s`]);
  });

  test("a host name that does not resolve (a database container restarting under Compose) is waited for too", async () => {
    const clock = jumpingClock();
    const lines: string[] = [];
    const error = await waitForDatabase("postgres://rehook:secret@rehook-db-restarting.invalid:5432/rehook", { timeoutMs: 1_000, clock, log: (line) => lines.push(line) }).then(
      () => undefined,
      (failure: Error) => failure,
    );
    expect(lines).toEqual(["waiting for the database at rehook-db-restarting.invalid:5432/rehook: the name rehook-db-restarting.invalid is not found (yet); trying again for up to 1 s"]);
    expect(clock.pauses).toEqual([250, 500, 250]);
    expect(error?.message).toBe(
      "the database at rehook-db-restarting.invalid:5432/rehook is not available after waiting 1 s (DATABASE_WAIT_MS=1000): the name rehook-db-restarting.invalid is not found (yet)",
    );
  });

  test("a database that does not exist fails at once, without waiting", async ({ database }) => {
    const missing = new URL(database.url);
    missing.pathname = "/rehook_no_such_database";
    const clock = jumpingClock();
    const error = await waitForDatabase(missing.href, { timeoutMs: 60_000, clock }).then(
      () => undefined,
      (failure: Error) => failure,
    );
    expect(error?.message).toMatch(/^could not connect to the database at [^:]+:\d+\/rehook_no_such_database: database "rehook_no_such_database" does not exist \(3D000\)$/);
    expect(clock.pauses).toEqual([]);
  });

  test("a role that does not exist (or a wrong password) fails at once, without waiting", async ({ database }) => {
    const stranger = new URL(database.url);
    stranger.username = "rehook_no_such_role";
    stranger.password = "wrong";
    const clock = jumpingClock();
    const error = await waitForDatabase(stranger.href, { timeoutMs: 60_000, clock }).then(
      () => undefined,
      (failure: Error) => failure,
    );
    expect(error?.message).toMatch(/^could not connect to the database at .*: (password authentication failed for user "rehook_no_such_role" \(28P01\)|role "rehook_no_such_role" does not exist \(28000\))$/);
    expect(clock.pauses).toEqual([]);
  });
});
