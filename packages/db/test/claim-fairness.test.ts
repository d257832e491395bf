import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createUuidV7Generator, uuidv7 } from "@rehook/core";
import { createTestDatabase, insertPersonalTeam, type TestDatabase } from "../../../tooling/vitest/src/postgres.js";
import { claimDueEvents, completeEvents, createOrm, createPool, handBackLeases, reclaimHeldRetries, resumeOwnedEndpoint, type Pool } from "../src/index.js";

// The recovery claim shares itself between endpoints: one endpoint's backlog cannot fill it,
// endpoints the claimer has no slot for are left out, and only due events of running
// endpoints are taken.

let db: TestDatabase;
let pool: Pool;
let teamId: string;
/** Ids in the order the events are "received". */
const nextId = createUuidV7Generator(() => 1_800_000_000_000);

async function endpoint(): Promise<string> {
  const id = uuidv7();
  await db.query("insert into endpoints (id, team_id, name, slug, destination_url, secret) values ($1, $2, $3, $4, 'https://example.com/in', 'whsec_x')", [
    id,
    teamId,
    id,
    `s-${id}`,
  ]);
  return id;
}

/** Stores this many pending events nobody holds (as after a crash), oldest first. */
async function pending(endpointId: string, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => nextId());
  await db.query(
    `insert into events (id, endpoint_id, received_at, method, path, query, headers, body, size_bytes, source, event_type, status, destination_url)
     select t.id, $1, now(), 'POST', '', '', '[]', '\\x7b7d', 2, 'unknown', 'unknown', 'pending', 'https://example.com/in'
     from unnest($2::uuid[]) as t(id)`,
    [endpointId, ids],
  );
  return ids;
}

const idsOf = (events: Array<{ id: string }>) => events.map((event) => event.id);

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ databaseUrl: db.url, max: 2 });
  const userId = uuidv7();
  await db.query("insert into users (id, email, password_hash) values ($1, 'claims@example.com', 'x')", [userId]);
  teamId = await insertPersonalTeam(db, userId);
});
beforeEach(async () => {
  await db.query("delete from events");
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

describe("recovery claim fairness", () => {
  it("takes at most perEndpoint events of each endpoint, oldest first, so a backlog leaves room for the others", async () => {
    const backlog = await endpoint();
    const quiet = await endpoint();
    const backlogIds = await pending(backlog, 30);
    const quietIds = await pending(quiet, 3);
    const claimed = await claimDueEvents(pool, 500, 60_000, 1024 * 1024, { perEndpoint: 10 });
    expect(idsOf(claimed).sort()).toEqual([...backlogIds.slice(0, 10), ...quietIds].sort());
    // The rest of the backlog stays unleased, for the next claim.
    const leased = await db.query<{ n: string }>("select count(*) as n from events where endpoint_id = $1 and lease_expires_at is not null", [backlog]);
    expect(Number(leased[0]!.n)).toBe(10);
    expect(idsOf(await claimDueEvents(pool, 500, 60_000, 1024 * 1024, { perEndpoint: 10 }))).toEqual(backlogIds.slice(10, 20));
  });

  it("caps each endpoint before it cuts the claim: an older backlog cannot take a small claim from the others", async () => {
    const backlog = await endpoint();
    const backlogIds = await pending(backlog, 30);
    const later = await endpoint();
    const laterIds = await pending(later, 3);
    const claimed = await claimDueEvents(pool, 10, 60_000, 1024 * 1024, { perEndpoint: 5 });
    expect(idsOf(claimed).sort()).toEqual([...backlogIds.slice(0, 5), ...laterIds].sort());
  });

  it("skips the endpoints it is told have no free slot", async () => {
    const saturated = await endpoint();
    const other = await endpoint();
    await pending(saturated, 5);
    const otherIds = await pending(other, 2);
    const claimed = await claimDueEvents(pool, 500, 60_000, 1024 * 1024, { perEndpoint: 10, skipEndpoints: [saturated] });
    expect(idsOf(claimed)).toEqual(otherIds);
    expect(await claimDueEvents(pool, 500, 60_000, 1024 * 1024, { perEndpoint: 10, skipEndpoints: [saturated] })).toEqual([]);
  });

  it("leaves events whose next attempt is not due yet and events of paused endpoints", async () => {
    const running = await endpoint();
    const paused = await endpoint();
    const [later, due, retryDue] = await pending(running, 3);
    await pending(paused, 2);
    await db.query("update events set next_attempt_at = now() + interval '1 hour' where id = $1", [later]);
    await db.query("update events set next_attempt_at = now() - interval '1 second' where id = $1", [retryDue]);
    await db.query("update endpoints set forwarding_paused_at = now() where id = $1", [paused]);
    expect(idsOf(await claimDueEvents(pool, 500, 60_000))).toEqual([due, retryDue]);
  });

  it("a handed-back lease is claimable at once, without counting an attempt that was never made", async () => {
    const id = await endpoint();
    const [eventId] = await pending(id, 1);
    const [claimed] = await claimDueEvents(pool, 500, 60_000);
    expect(claimed!.id).toBe(eventId);
    expect(await claimDueEvents(pool, 500, 60_000)).toEqual([]);
    await handBackLeases(pool, [{ id: eventId!, attempt: claimed!.attempt }]);
    const [row] = await db.query<{ attempts: number; lease_expires_at: Date | null }>("select attempts, lease_expires_at from events where id = $1", [eventId]);
    expect(row).toEqual({ attempts: 0, lease_expires_at: null });
    expect(idsOf(await claimDueEvents(pool, 500, 60_000))).toEqual([eventId]);
  });

  it("a late hand-back leaves a newer claim of the same event alone", async () => {
    const id = await endpoint();
    const [eventId] = await pending(id, 1);
    const [first] = await claimDueEvents(pool, 500, 60_000);
    // The first lease expires and another claim takes the event (attempt 2).
    await db.query("update events set lease_expires_at = now() - interval '1 second' where id = $1", [eventId]);
    const [second] = await claimDueEvents(pool, 500, 60_000);
    expect(second!.attempt).toBe(first!.attempt + 1);
    await handBackLeases(pool, [{ id: eventId!, attempt: first!.attempt }]);
    const [row] = await db.query<{ attempts: number; leased: boolean }>("select attempts, lease_expires_at > now() as leased from events where id = $1", [eventId]);
    expect(row).toEqual({ attempts: second!.attempt, leased: true });
  });

  it("resume drains a paused endpoint's scheduled retries at once, and leaves a running one's waits alone", async () => {
    const running = await endpoint();
    const paused = await endpoint();
    const [waitingRunning] = await pending(running, 1);
    const [waitingPaused] = await pending(paused, 1);
    await db.query("update events set next_attempt_at = now() + interval '1 hour' where id = any($1::uuid[])", [[waitingRunning, waitingPaused]]);
    await db.query("update endpoints set forwarding_paused_at = now(), paused_reason = 'test' where id = $1", [paused]);
    const orm = await createOrm({ databaseUrl: db.url, poolSize: 1 });
    try {
      expect(await resumeOwnedEndpoint(orm.em.fork(), teamId, running)).toEqual({ rescheduled: 0 });
      expect(await resumeOwnedEndpoint(orm.em.fork(), teamId, paused)).toEqual({ rescheduled: 1 });
    } finally {
      await orm.close(true);
    }
    const rows = await db.query<{ id: string; due: boolean }>("select id, next_attempt_at <= now() as due from events where id = any($1::uuid[])", [[waitingRunning, waitingPaused]]);
    expect(Object.fromEntries(rows.map((row) => [row.id, row.due]))).toEqual({ [waitingRunning!]: false, [waitingPaused!]: true });
  });

  it("a retry kept in memory is re-claimed without a read of its body, unless it changed or its endpoint paused meanwhile", async () => {
    const running = await endpoint();
    const paused = await endpoint();
    const [kept, retriedByHand] = await pending(running, 2);
    const [onPaused] = await pending(paused, 1);
    const claimed = await claimDueEvents(pool, 500, 60_000);
    expect(claimed).toHaveLength(3);
    // Each first attempt failed and its retry is kept by the claimer: leased past the retry.
    const failed = (id: string) => ({
      id,
      attempt: 1,
      status: "failed" as const,
      retryInMs: 1_000,
      holdLeaseMs: 60_000,
      startedAt: Date.now(),
      latencyMs: 1,
      responseStatus: 500,
      responseHeaders: [],
      responseBody: null,
      responseTruncated: false,
      error: null,
    });
    const completed = await completeEvents(pool, [kept!, retriedByHand!, onPaused!].map(failed));
    expect(completed.map((event) => event.status)).toEqual(["pending", "pending", "pending"]);
    const leased = await db.query<{ n: string }>("select count(*) as n from events where lease_expires_at > next_attempt_at");
    expect(leased[0]!.n).toBe("3");
    // Meanwhile: "retry now" on one (its lease is cleared), and the other endpoint paused.
    await db.query("update events set lease_expires_at = null, next_attempt_at = now() where id = $1", [retriedByHand]);
    await db.query("update endpoints set forwarding_paused_at = now() where id = $1", [paused]);
    const reclaimed = await reclaimHeldRetries(pool, [kept!, retriedByHand!, onPaused!].map((id) => ({ id, attempt: 1 })), 60_000);
    expect(reclaimed.map((row) => [row.id, row.attempt])).toEqual([[kept, 2]]);
    const rows = await db.query<{ id: string; attempts: number; leased: boolean }>(
      "select id, attempts, coalesce(lease_expires_at > now(), false) as leased from events where id = any($1::uuid[]) order by id",
      [[kept, retriedByHand, onPaused]],
    );
    // The paused endpoint's retry is given back unleased, its attempt still counted, to wait for the resume.
    expect(rows).toEqual([
      { id: kept, attempts: 2, leased: true },
      { id: retriedByHand, attempts: 1, leased: false },
      { id: onPaused, attempts: 1, leased: false },
    ]);
  });
});
