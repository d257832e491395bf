import { randomBytes } from "node:crypto";
import { describe, expect } from "vitest";
import { SEARCH_INDEX_JOB, silentLogger, uuidv7, uuidv7Floor } from "@rehook/core";
import { createPool, eventPartitions, type Pool, type RunningJob } from "@rehook/db";
import { eventCountMismatches } from "@rehook/vitest-config/event-counts";
import { test as base } from "@rehook/vitest-config/fixtures";
import { activityCompaction, countsCompaction, endpointPurge, eventRetention, scheduleUpkeep, sessionPurge } from "@rehook/services";

// The recurring upkeep jobs' handlers, run by hand on a database of the file's own with no
// job runner beside them (the service graph's would run the same jobs meanwhile): what each
// deletes or folds, what it leaves, and when it asks to run again. Retention by partition and
// by batch, and the endpoint purge at scale, are in event-storage.test.ts.

const test = base.extend<{ pool: Pool }>({
  pool: [
    async ({ database }, use) => {
      const pool = createPool({ databaseUrl: database.url, max: 4 });
      try {
        await use(pool);
      } finally {
        await pool.end();
      }
    },
    { scope: "file" },
  ],
});

const DAY = 86_400_000;
const job = (key = "all", signal = new AbortController().signal): RunningJob => ({ id: "1", key, payload: {}, attempt: 1, signal });
const aborted = () => {
  const controller = new AbortController();
  controller.abort();
  return controller.signal;
};

async function userRow(pool: Pool): Promise<string> {
  const id = uuidv7();
  await pool.query("insert into users (id, email, password_hash) values ($1, $2, 'x')", [id, `purge-${randomBytes(4).toString("hex")}@example.com`]);
  return id;
}

/** A team of no one: endpoints need an owning team, the purges never look at its members. */
async function teamRow(pool: Pool): Promise<string> {
  const id = uuidv7();
  await pool.query("insert into teams (id, name, slug) values ($1, 'p', $2)", [id, `p-${id.slice(-12)}`]);
  return id;
}

async function endpointRow(pool: Pool, teamId: string): Promise<string> {
  const id = uuidv7();
  await pool.query("insert into endpoints (id, team_id, name, slug, secret) values ($1, $2, 'p', $3, 'whsec_x')", [id, teamId, `p-${id.slice(-12)}`]);
  return id;
}

/** Events stored with their counts as the capture statement stores them, as delta rows. */
async function storedEvents(pool: Pool, endpointId: string, count: number): Promise<void> {
  for (let i = 0; i < count; i += 1) {
    await pool.query(
      `insert into events (id, endpoint_id, received_at, method, path, query, headers, body, size_bytes, source, event_type, status)
       values ($1, $2, now(), 'POST', '', '', '[]', '\\x7b7d', 2, 'unknown', 'unknown', 'captured')`,
      [uuidv7(), endpointId],
    );
    await pool.query("insert into event_counts (endpoint_id, status, n) values ($1, 'captured', 1)", [endpointId]);
  }
}

describe("sessionPurge", () => {
  test("deletes expired sessions, keeps live ones, and runs again in an hour", async ({ pool }) => {
    const userId = await userRow(pool);
    await pool.query("insert into sessions (id, user_id, expires_at) values ('expired-1', $1, now() - interval '1 day'), ('expired-2', $1, now() - interval '1 second'), ('live', $1, now() + interval '1 day')", [userId]);
    const handler = sessionPurge(pool);
    expect(await handler.run(job())).toEqual({ kind: "later", inMs: 60 * 60_000 });
    expect((await pool.query<{ id: string }>("select id from sessions where user_id = $1", [userId])).rows).toEqual([{ id: "live" }]);
  });

  test("answers stopped when its instance stops", async ({ pool }) => {
    expect(await sessionPurge(pool).run(job("all", aborted()))).toEqual({ kind: "stopped" });
  });
});

describe("endpointPurge", () => {
  test("deletes a deleted endpoint's events, then its count rows, and is done", async ({ pool, database }) => {
    const teamId = await teamRow(pool);
    const doomed = await endpointRow(pool, teamId);
    const kept = await endpointRow(pool, teamId);
    await storedEvents(pool, doomed, 3);
    await storedEvents(pool, kept, 2);
    await pool.query("delete from endpoints where id = $1", [doomed]);
    expect(await endpointPurge(pool).run(job(doomed))).toEqual({ kind: "done" });
    expect((await pool.query("select 1 from events where endpoint_id = $1", [doomed])).rows).toHaveLength(0);
    expect((await pool.query("select 1 from event_counts where endpoint_id = $1", [doomed])).rows).toHaveLength(0);
    expect((await pool.query("select 1 from events where endpoint_id = $1", [kept])).rows).toHaveLength(2);
    expect(await eventCountMismatches(database)).toEqual([]);
  });

  test("stops before deleting anything when its instance stops", async ({ pool }) => {
    const teamId = await teamRow(pool);
    const doomed = await endpointRow(pool, teamId);
    await storedEvents(pool, doomed, 1);
    expect(await endpointPurge(pool).run(job(doomed, aborted()))).toEqual({ kind: "stopped" });
    expect((await pool.query("select 1 from events where endpoint_id = $1", [doomed])).rows).toHaveLength(1);
  });
});

describe("countsCompaction", () => {
  test("folds an endpoint's delta rows into one without changing its totals, every ten seconds", async ({ pool, database }) => {
    const teamId = await teamRow(pool);
    const endpointId = await endpointRow(pool, teamId);
    await storedEvents(pool, endpointId, 4);
    const rows = async () => (await pool.query<{ n: string }>("select n::text from event_counts where endpoint_id = $1", [endpointId])).rows;
    expect(await rows()).toHaveLength(4);
    expect(await countsCompaction(pool).run(job())).toEqual({ kind: "later", inMs: 10_000 });
    expect(await rows()).toEqual([{ n: "4" }]);
    expect(await eventCountMismatches(database)).toEqual([]);
  });
});

describe("activityCompaction", () => {
  test("runs again in thirty seconds when nothing is left to fold", async ({ pool }) => {
    expect(await activityCompaction(pool, () => Date.now()).run(job())).toEqual({ kind: "later", inMs: 30_000 });
  });
});

describe("eventRetention", () => {
  test("makes sure of the partitions ahead, and with every event kept for ever drops nothing", async ({ pool }) => {
    const teamId = await teamRow(pool);
    const endpointId = await endpointRow(pool, teamId);
    await storedEvents(pool, endpointId, 2);
    const at = Date.now();
    expect(await eventRetention({ pool, logger: silentLogger, defaultDays: 0, now: () => at }).run(job())).toEqual({ kind: "later", inMs: 10 * 60_000 });
    const partitions = await eventPartitions(pool);
    // Tomorrow's partition exists before tomorrow's first capture.
    expect(partitions.some((partition) => partition.from !== null && partition.from <= uuidv7Floor(at + DAY) && partition.to > uuidv7Floor(at + DAY))).toBe(true);
    expect((await pool.query("select 1 from events where endpoint_id = $1", [endpointId])).rows).toHaveLength(2);
  });

  test("answers stopped when its instance stops before a partition is dropped", async ({ pool }) => {
    const later = Date.now() + 400 * DAY;
    const before = await eventPartitions(pool);
    expect(await eventRetention({ pool, logger: silentLogger, defaultDays: 1, now: () => later }).run(job("all", aborted()))).toEqual({ kind: "stopped" });
    const after = await eventPartitions(pool);
    // Partitions ahead of the (moved) clock were made; none was dropped.
    expect(before.every((partition) => after.some((kept) => kept.name === partition.name))).toBe(true);
  });
});

describe("scheduleUpkeep", () => {
  test("makes sure each recurring job exists once, keeping the schedule of one that does", async ({ pool }) => {
    const kinds = [sessionPurge(pool).kind, eventRetention({ pool, logger: silentLogger, defaultDays: 30 }).kind, countsCompaction(pool).kind, activityCompaction(pool).kind, SEARCH_INDEX_JOB];
    await scheduleUpkeep(pool);
    await pool.query("update jobs set run_at = now() + interval '1 hour' where kind = $1", [kinds[0]]);
    const scheduled = async () =>
      (await pool.query<{ kind: string; key: string; run_at: Date }>("select kind, key, run_at from jobs where kind = any($1) order by kind", [kinds])).rows;
    const first = await scheduled();
    expect(first.map((row) => [row.kind, row.key])).toEqual([...kinds].sort().map((kind) => [kind, "all"]));
    await scheduleUpkeep(pool);
    expect(await scheduled()).toEqual(first);
  });
});
