import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createUuidV7Generator, uuidv7 } from "@rehook/core";
import { createTestDatabase, insertUserWithTeam, type TestDatabase } from "../../../tooling/vitest/src/postgres.js";
import { claimDueDeliveries, completeDeliveries, createOrm, createPool, handBackLeases, reclaimHeldRetries, resumeOwnedEndpoint, type Pool } from "../src/index.js";

// The recovery claim shares itself between destinations: one destination's backlog cannot
// fill it, destinations the claimer has no slot for are left out, and only due deliveries of
// running destinations are taken.

let db: TestDatabase;
let pool: Pool;
let teamId: string;
/** Ids in the order the events are "received". */
const nextId = createUuidV7Generator(() => 1_800_000_000_000);

/** An endpoint with one destination (position 0), as the claim knows it. */
interface Target {
  endpointId: string;
  destinationId: string;
}

async function endpoint(): Promise<Target> {
  const endpointId = uuidv7();
  const destinationId = uuidv7();
  await db.query("insert into endpoints (id, team_id, name, slug, secret) values ($1, $2, $3, $4, 'whsec_x')", [endpointId, teamId, endpointId, `s-${endpointId}`]);
  await db.query(
    `insert into destinations (id, endpoint_id, position, name, url, created_at, updated_at)
     values ($1, $2, 0, 'example.com', 'https://example.com/in', now(), now())`,
    [destinationId, endpointId],
  );
  return { endpointId, destinationId };
}

/** Stores this many pending events, each with its pending delivery nobody holds (as after a crash), oldest first. */
async function pending(target: Target, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => nextId());
  await db.query(
    `insert into events (id, endpoint_id, received_at, method, path, query, headers, body, size_bytes, source, event_type, status, destination_url)
     select t.id, $1, now(), 'POST', '', '', '[]', '\\x7b7d', 2, 'unknown', 'unknown', 'pending', 'https://example.com/in'
     from unnest($2::uuid[]) as t(id)`,
    [target.endpointId, ids],
  );
  await db.query(`insert into deliveries (event_id, destination_id, endpoint_id, status) select t.id, $1, $2, 'pending' from unnest($3::uuid[]) as t(id)`, [
    target.destinationId,
    target.endpointId,
    ids,
  ]);
  return ids;
}

const idsOf = (events: Array<{ id: string }>) => events.map((event) => event.id);

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ databaseUrl: db.url, max: 2 });
  teamId = await insertUserWithTeam(db, "claims@example.com");
});
beforeEach(async () => {
  await db.query("delete from deliveries");
  await db.query("delete from events");
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

describe("recovery claim fairness", () => {
  it("takes at most perDestination deliveries of each destination, oldest first, so a backlog leaves room for the others", async () => {
    const backlog = await endpoint();
    const quiet = await endpoint();
    const backlogIds = await pending(backlog, 30);
    const quietIds = await pending(quiet, 3);
    const claimed = await claimDueDeliveries(pool, 500, 60_000, 1024 * 1024, { perDestination: 10 });
    expect(idsOf(claimed).sort()).toEqual([...backlogIds.slice(0, 10), ...quietIds].sort());
    // The rest of the backlog stays unleased, for the next claim.
    const leased = await db.query<{ n: string }>("select count(*) as n from deliveries where destination_id = $1 and lease_expires_at is not null", [
      backlog.destinationId,
    ]);
    expect(Number(leased[0]!.n)).toBe(10);
    expect(idsOf(await claimDueDeliveries(pool, 500, 60_000, 1024 * 1024, { perDestination: 10 }))).toEqual(backlogIds.slice(10, 20));
  });

  it("caps each destination before it cuts the claim: an older backlog cannot take a small claim from the others", async () => {
    const backlog = await endpoint();
    const backlogIds = await pending(backlog, 30);
    const later = await endpoint();
    const laterIds = await pending(later, 3);
    const claimed = await claimDueDeliveries(pool, 10, 60_000, 1024 * 1024, { perDestination: 5 });
    expect(idsOf(claimed).sort()).toEqual([...backlogIds.slice(0, 5), ...laterIds].sort());
  });

  it("skips the destinations it is told have no free slot", async () => {
    const saturated = await endpoint();
    const other = await endpoint();
    await pending(saturated, 5);
    const otherIds = await pending(other, 2);
    const fairness = { perDestination: 10, skipDestinations: [saturated.destinationId] };
    const claimed = await claimDueDeliveries(pool, 500, 60_000, 1024 * 1024, fairness);
    expect(idsOf(claimed)).toEqual(otherIds);
    expect(await claimDueDeliveries(pool, 500, 60_000, 1024 * 1024, fairness)).toEqual([]);
  });

  it("leaves deliveries whose next attempt is not due yet and deliveries to paused destinations", async () => {
    const running = await endpoint();
    const paused = await endpoint();
    const [later, due, retryDue] = await pending(running, 3);
    await pending(paused, 2);
    await db.query("update deliveries set next_attempt_at = now() + interval '1 hour' where event_id = $1", [later]);
    await db.query("update deliveries set next_attempt_at = now() - interval '1 second' where event_id = $1", [retryDue]);
    await db.query("update destinations set forwarding_paused_at = now() where id = $1", [paused.destinationId]);
    expect(idsOf(await claimDueDeliveries(pool, 500, 60_000))).toEqual([due, retryDue]);
  });

  it("a handed-back lease is claimable at once, without counting an attempt that was never made", async () => {
    const target = await endpoint();
    const [eventId] = await pending(target, 1);
    const [claimed] = await claimDueDeliveries(pool, 500, 60_000);
    expect(claimed!.id).toBe(eventId);
    expect(claimed!.destinationId).toBe(target.destinationId);
    expect(await claimDueDeliveries(pool, 500, 60_000)).toEqual([]);
    await handBackLeases(pool, [{ id: eventId!, destinationId: target.destinationId, attempt: claimed!.attempt, heldOn: "delivery", probe: false }]);
    const [row] = await db.query<{ attempts: number; lease_expires_at: Date | null }>("select attempts, lease_expires_at from deliveries where event_id = $1", [eventId]);
    expect(row).toEqual({ attempts: 0, lease_expires_at: null });
    expect(idsOf(await claimDueDeliveries(pool, 500, 60_000))).toEqual([eventId]);
  });

  it("a late hand-back leaves a newer claim of the same delivery alone", async () => {
    const target = await endpoint();
    const [eventId] = await pending(target, 1);
    const [first] = await claimDueDeliveries(pool, 500, 60_000);
    // The first lease expires and another claim takes the delivery (attempt 2).
    await db.query("update deliveries set lease_expires_at = now() - interval '1 second' where event_id = $1", [eventId]);
    const [second] = await claimDueDeliveries(pool, 500, 60_000);
    expect(second!.attempt).toBe(first!.attempt + 1);
    await handBackLeases(pool, [{ id: eventId!, destinationId: target.destinationId, attempt: first!.attempt, heldOn: "delivery", probe: false }]);
    const [row] = await db.query<{ attempts: number; leased: boolean }>("select attempts, lease_expires_at > now() as leased from deliveries where event_id = $1", [
      eventId,
    ]);
    expect(row).toEqual({ attempts: second!.attempt, leased: true });
  });

  it("resume drains a paused destination's scheduled retries at once, and leaves a running one's waits alone", async () => {
    const running = await endpoint();
    const paused = await endpoint();
    const [waitingRunning] = await pending(running, 1);
    const [waitingPaused] = await pending(paused, 1);
    await db.query("update deliveries set next_attempt_at = now() + interval '1 hour' where event_id = any($1::uuid[])", [[waitingRunning, waitingPaused]]);
    await db.query("update destinations set forwarding_paused_at = now(), paused_reason = 'test' where id = $1", [paused.destinationId]);
    const orm = await createOrm({ databaseUrl: db.url, poolSize: 1 });
    try {
      expect(await resumeOwnedEndpoint(orm.em.fork(), teamId, running.endpointId)).toEqual({ rescheduled: 0, destinations: 1, resumed: [] });
      expect(await resumeOwnedEndpoint(orm.em.fork(), teamId, paused.endpointId)).toEqual({ rescheduled: 1, destinations: 1, resumed: [{ id: paused.destinationId, consecutiveFailures: 0 }] });
    } finally {
      await orm.close(true);
    }
    const rows = await db.query<{ id: string; due: boolean }>("select event_id as id, next_attempt_at <= now() as due from deliveries where event_id = any($1::uuid[])", [
      [waitingRunning, waitingPaused],
    ]);
    expect(Object.fromEntries(rows.map((row) => [row.id, row.due]))).toEqual({ [waitingRunning!]: false, [waitingPaused!]: true });
    const [resumed] = await db.query("select forwarding_paused_at, paused_reason from destinations where id = $1", [paused.destinationId]);
    expect(resumed).toEqual({ forwarding_paused_at: null, paused_reason: null });
  });

  it("a retry kept in memory is re-claimed without a read of its body, unless it changed or its destination paused meanwhile", async () => {
    const running = await endpoint();
    const paused = await endpoint();
    const [kept, retriedByHand] = await pending(running, 2);
    const [onPaused] = await pending(paused, 1);
    const claimed = await claimDueDeliveries(pool, 500, 60_000);
    expect(claimed).toHaveLength(3);
    const claims = claimed.map((delivery) => ({ id: delivery.id, destinationId: delivery.destinationId, attempt: 1, heldOn: "delivery" as const, probe: false }));
    expect(claims.map((claim) => claim.id)).toEqual([kept, retriedByHand, onPaused]);
    // Each first attempt failed and its retry is kept by the claimer: leased past the retry.
    const failed = (claim: { id: string; destinationId: string }) => ({
      ...claim,
      attempt: 1,
      heldOn: "delivery" as const,
      probe: false,
      otherDeliveries: false,
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
    const completed = await completeDeliveries(pool, claims.map(failed));
    expect(completed.map((delivery) => delivery.status)).toEqual(["pending", "pending", "pending"]);
    const leased = await db.query<{ n: string }>("select count(*) as n from deliveries where lease_expires_at > next_attempt_at");
    expect(leased[0]!.n).toBe("3");
    // Meanwhile: "retry now" on one (its lease is cleared), and the other destination paused.
    await db.query("update deliveries set lease_expires_at = null, next_attempt_at = now() where event_id = $1", [retriedByHand]);
    await db.query("update destinations set forwarding_paused_at = now() where id = $1", [paused.destinationId]);
    const reclaimed = await reclaimHeldRetries(pool, claims, 60_000);
    expect(reclaimed.map((row) => [row.id, row.destinationId, row.attempt])).toEqual([[kept, running.destinationId, 2]]);
    const rows = await db.query<{ id: string; attempts: number; leased: boolean }>(
      "select event_id as id, attempts, coalesce(lease_expires_at > now(), false) as leased from deliveries where event_id = any($1::uuid[]) order by event_id",
      [[kept, retriedByHand, onPaused]],
    );
    // The paused destination's retry is given back unleased, its attempt still counted, to wait for the resume.
    expect(rows).toEqual([
      { id: kept, attempts: 2, leased: true },
      { id: retriedByHand, attempts: 1, leased: false },
      { id: onPaused, attempts: 1, leased: false },
    ]);
  });
});
