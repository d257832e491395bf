import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { latencyBucket, UserError, uuidv7 } from "@rehook/core";
import {
  ACTIVITY_KEPT_DAYS,
  claimDueDeliveries,
  compactEventActivity,
  completeDeliveries,
  createOrm,
  createPool,
  deleteOwnedEndpoint,
  GroupCommitWriter,
  leaseOf,
  type DeliveryOutcome,
  type Orm,
  type Pool,
  type RunningJob,
} from "@rehook/db";
import { createTestDatabase, insertDestination, insertPersonalTeam, type TestDatabase } from "../../../tooling/vitest/src/postgres.js";
import { endpointPurge, eventActivity } from "../src/index.js";

// The charts' numbers against a real PostgreSQL: rollup rows written by the capture and
// completion statements themselves, read back as zero-filled series scoped to the team,
// folded without changing a sum, expired after ACTIVITY_KEPT_DAYS, forgotten with their endpoint.

const MINUTE = 60_000;
const DAY = 86_400_000;
let db: TestDatabase;
let pool: Pool;
let orm: Orm;
let userId: string;
let otherUserId: string;
let teamId: string;
let otherTeamId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ databaseUrl: db.url, max: 4 });
  orm = await createOrm({ databaseUrl: db.url, poolSize: 2 });
  userId = uuidv7();
  otherUserId = uuidv7();
  await db.query("insert into users (id, email, password_hash) values ($1, 'charts@example.com', 'x'), ($2, 'other@example.com', 'x')", [userId, otherUserId]);
  teamId = await insertPersonalTeam(db, userId);
  otherTeamId = await insertPersonalTeam(db, otherUserId);
});
beforeEach(async () => {
  for (const table of ["endpoints", "events", "deliveries", "event_counts", "event_minutes", "latency_minutes"]) await db.query(`delete from ${table}`);
});
afterAll(async () => {
  await orm.close(true);
  await pool.end();
  await db.drop();
});

async function endpoint(owner = teamId, destinationUrl: string | null = "http://127.0.0.1:9/hook"): Promise<{ id: string; slug: string }> {
  const id = uuidv7();
  const slug = `c-${id.slice(-12)}`;
  await db.query("insert into endpoints (id, team_id, name, slug, secret) values ($1, $2, $3, $4, 'whsec_x')", [id, owner, slug, slug]);
  if (destinationUrl !== null) await insertDestination(db, id, destinationUrl);
  return { id, slug };
}

/** Captures `count` requests received at `at` through the capture statement. */
async function capture(slug: string, at: number, count: number): Promise<void> {
  const writer = new GroupCommitWriter(pool);
  const results = await Promise.all(
    Array.from({ length: count }, () =>
      writer.write({ id: uuidv7(), slug, receivedAt: new Date(at), method: "POST", path: "", query: "", headers: [], body: Buffer.from("{}"), contentType: null, clientIp: null, source: "unknown", eventType: "unknown" }),
    ),
  );
  expect(results.every((result) => result.kind === "stored")).toBe(true);
}

type Outcome = Pick<DeliveryOutcome, "status" | "latencyMs"> & { retry?: boolean };

/** Claims due deliveries and stores one attempt for each, with these outcomes in order, through the completion statement. */
async function deliver(outcomes: Outcome[]): Promise<void> {
  const claimed = await claimDueDeliveries(pool, outcomes.length, 60_000);
  expect(claimed).toHaveLength(outcomes.length);
  await completeDeliveries(
    pool,
    claimed.map((event, i) => ({
      ...leaseOf(event),
      otherDeliveries: event.otherDeliveries,
      status: outcomes[i]!.status,
      retryInMs: outcomes[i]!.retry ? 60_000 : null,
      startedAt: Date.now(),
      latencyMs: outcomes[i]!.latencyMs,
      responseStatus: outcomes[i]!.status === "delivered" ? 200 : 500,
      responseHeaders: [],
      responseBody: null,
      responseTruncated: false,
      error: null,
    })),
  );
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

describe("activity series", () => {
  it("counts captures per minute, final outcomes and attempts' latency, zero-filled over the window", async () => {
    const { id, slug } = await endpoint();
    const now = Date.now();
    const thisMinute = Math.floor(now / MINUTE) * MINUTE;
    await capture(slug, thisMinute - 10 * MINUTE + 5_000, 3);
    await capture(slug, thisMinute - 2 * MINUTE + 59_000, 2);
    // 3 delivered fast, 1 failed slow, 1 failed with a retry ahead (its attempt counts, not its outcome).
    await deliver([
      { status: "delivered", latencyMs: 20 },
      { status: "delivered", latencyMs: 20 },
      { status: "delivered", latencyMs: 20 },
      { status: "failed", latencyMs: 2_000 },
      { status: "failed", latencyMs: 2_000, retry: true },
    ]);
    const clock = Date.now();

    const hour = await eventActivity({ orm, now: () => clock }, { teamId, endpointId: id, range: "hour" });
    expect(hour.points).toHaveLength(60);
    expect(hour.bucketMs).toBe(MINUTE);
    // Consecutive buckets aligned to whole minutes, the last one holding now.
    hour.points.forEach((point, i) => expect(point.at).toBe(hour.points[0]!.at + i * MINUTE));
    expect(hour.points.at(-1)!.at).toBe(Math.floor(clock / MINUTE) * MINUTE);
    const capturedAt = (at: number) => hour.points.find((point) => point.at === at)!.captured;
    expect(capturedAt(thisMinute - 10 * MINUTE)).toBe(3);
    expect(capturedAt(thisMinute - 2 * MINUTE)).toBe(2);
    expect(sum(hour.points.map((point) => point.captured))).toBe(5);
    expect(hour.points.filter((point) => point.captured === 0)).toHaveLength(58);
    // Outcomes at the minute they were stored: the last bucket or, across a minute's turn, the one before.
    expect(sum(hour.points.slice(-2).map((point) => point.delivered))).toBe(3);
    expect(sum(hour.points.slice(-2).map((point) => point.failed))).toBe(1);
    expect(hour.totals).toMatchObject({ captured: 5, delivered: 3, failed: 1 });
    // 5 attempts: three at 20 ms, two at 2 s; p50 within 20 ms's bucket, p95 within 2 s's.
    expect(latencyBucket(hour.totals.p50!)).toBe(latencyBucket(20));
    expect(latencyBucket(hour.totals.p95!)).toBe(latencyBucket(2_000));
    expect(hour.points.filter((point) => point.p50 !== null).length).toBeGreaterThanOrEqual(1);
    expect(hour.points[0]).toMatchObject({ captured: 0, delivered: 0, failed: 0, p50: null, p95: null });

    // The day and the week hold the same events in wider buckets.
    const day = await eventActivity({ orm, now: () => clock }, { teamId, endpointId: id, range: "day" });
    expect(day.points).toHaveLength(96);
    expect(day.bucketMs).toBe(15 * MINUTE);
    expect(day.points.every((point) => point.at % (15 * MINUTE) === 0)).toBe(true);
    expect(day.totals).toMatchObject({ captured: 5, delivered: 3, failed: 1 });
    const week = await eventActivity({ orm, now: () => clock }, { teamId, endpointId: id, range: "week" });
    expect(week.points).toHaveLength(168);
    expect(week.totals).toMatchObject({ captured: 5, delivered: 3, failed: 1 });

    // An hour later the captures have left the hour's window but not the day's.
    const later = await eventActivity({ orm, now: () => clock + 60 * MINUTE }, { teamId, endpointId: id, range: "hour" });
    expect(later.totals.captured).toBe(0);
  });

  it("is scoped to the team: all of its endpoints, none of another team's, another team's endpoint not found", async () => {
    const mine = [await endpoint(teamId, null), await endpoint(teamId, null)];
    const theirs = await endpoint(otherTeamId, null);
    const now = Date.now();
    await capture(mine[0]!.slug, now, 2);
    await capture(mine[1]!.slug, now, 3);
    await capture(theirs.slug, now, 7);

    const all = await eventActivity({ orm, now: () => now }, { teamId, range: "day" });
    expect(all.totals.captured).toBe(5);
    expect((await eventActivity({ orm, now: () => now }, { teamId: otherTeamId, range: "day" })).totals.captured).toBe(7);

    const refused = await eventActivity({ orm, now: () => now }, { teamId, endpointId: theirs.id, range: "hour" }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(UserError);
    expect(refused).toMatchObject({ code: "not_found", message: expect.stringMatching(/^There is no endpoint with the id .+\.$/) });
    await expect(eventActivity({ orm }, { teamId, endpointId: "not-a-uuid", range: "hour" })).rejects.toMatchObject({ code: "not_found" });
    await expect(eventActivity({ orm }, { teamId, range: "month" as "hour" })).rejects.toMatchObject({ code: "validation_failed" });
  });
});

describe("compaction", () => {
  const minuteRows = (endpointId: string) =>
    db.query<{ minute: Date; rows: number; captured: number; delivered: number; failed: number }>(
      `select minute, count(*)::int as rows, sum(captured)::int as captured, sum(delivered)::int as delivered, sum(failed)::int as failed
       from event_minutes where endpoint_id = $1 group by minute order by minute`,
      [endpointId],
    );
  const latencyRows = (endpointId: string) =>
    db.query<{ minute: Date; bucket: number; rows: number; n: number }>(
      "select minute, bucket, count(*)::int as rows, sum(n)::int as n from latency_minutes where endpoint_id = $1 group by minute, bucket order by minute, bucket",
      [endpointId],
    );

  it("folds the past minutes' deltas into one row each without changing a sum, leaves the current minute, drops rows past the kept days", async () => {
    const { id } = await endpoint();
    const now = Date.now();
    const thisMinute = Math.floor(now / MINUTE) * MINUTE;
    const past = thisMinute - 3 * MINUTE;
    const expired = thisMinute - (ACTIVITY_KEPT_DAYS * DAY + 5 * MINUTE);
    const insertMinute = (minute: number, captured: number, delivered: number, failed: number) =>
      db.query("insert into event_minutes (endpoint_id, minute, captured, delivered, failed) values ($1, to_timestamp($2::float8 / 1000), $3, $4, $5)", [
        id,
        minute,
        captured,
        delivered,
        failed,
      ]);
    const insertLatency = (minute: number, bucket: number, n: number) =>
      db.query("insert into latency_minutes (endpoint_id, minute, bucket, n) values ($1, to_timestamp($2::float8 / 1000), $3, $4)", [id, minute, bucket, n]);
    for (let i = 0; i < 4; i += 1) await insertMinute(past, 5, 0, 0);
    await insertMinute(past, 0, 7, 2);
    await insertMinute(thisMinute, 1, 0, 0);
    await insertMinute(thisMinute, 1, 0, 0);
    await insertMinute(expired, 9, 9, 9);
    for (let i = 0; i < 3; i += 1) await insertLatency(past, 2, 4);
    await insertLatency(past, 7, 1);
    await insertLatency(expired, 2, 4);
    const before = await eventActivity({ orm, now: () => now }, { teamId, endpointId: id, range: "hour" });

    const result = await compactEventActivity(pool, now, 1_000);
    expect(result).toEqual({ folded: 5 + 3, expired: 2, more: false });
    expect(await minuteRows(id)).toEqual([
      { minute: new Date(past), rows: 1, captured: 20, delivered: 7, failed: 2 },
      { minute: new Date(thisMinute), rows: 2, captured: 2, delivered: 0, failed: 0 },
    ]);
    expect(await latencyRows(id)).toEqual([
      { minute: new Date(past), bucket: 2, rows: 1, n: 12 },
      { minute: new Date(past), bucket: 7, rows: 1, n: 1 },
    ]);
    // The series read the same sums before and after.
    expect(await eventActivity({ orm, now: () => now }, { teamId, endpointId: id, range: "hour" })).toEqual(before);
    // Nothing left to fold.
    expect(await compactEventActivity(pool, now, 1_000)).toEqual({ folded: 0, expired: 0, more: false });
  });

  it("works in bounded steps and says when there is more", async () => {
    const { id } = await endpoint();
    const now = Date.now();
    const thisMinute = Math.floor(now / MINUTE) * MINUTE;
    for (const back of [1, 2, 3]) {
      await db.query("insert into event_minutes (endpoint_id, minute, captured) select $1, to_timestamp($2::float8 / 1000), 1 from generate_series(1, 3)", [id, thisMinute - back * MINUTE]);
    }
    expect(await compactEventActivity(pool, now, 2)).toMatchObject({ folded: 6, more: true });
    expect(await compactEventActivity(pool, now, 2)).toMatchObject({ folded: 3, more: false });
    expect((await minuteRows(id)).map((row) => [row.rows, row.captured])).toEqual([
      [1, 3],
      [1, 3],
      [1, 3],
    ]);
  });
});

describe("a deleted endpoint", () => {
  it("loses its rollup rows when its purge runs; other endpoints keep theirs", async () => {
    const doomed = await endpoint();
    const kept = await endpoint();
    await capture(doomed.slug, Date.now(), 3);
    await capture(kept.slug, Date.now(), 2);
    await deliver([
      { status: "delivered", latencyMs: 30 },
      { status: "failed", latencyMs: 30 },
    ]);
    expect(await deleteOwnedEndpoint(orm.em.fork(), teamId, { id: doomed.id })).toBe(doomed.id);
    const job: RunningJob = { id: "1", key: doomed.id, payload: {}, attempt: 1, signal: new AbortController().signal };
    expect(await endpointPurge(pool).run(job)).toEqual({ kind: "done" });
    for (const table of ["event_minutes", "latency_minutes"]) {
      expect(await db.query(`select 1 from ${table} where endpoint_id = $1`, [doomed.id])).toEqual([]);
    }
    expect(await db.query<{ n: number }>("select sum(captured)::int as n from event_minutes where endpoint_id = $1", [kept.id])).toEqual([{ n: 2 }]);
  });
});
