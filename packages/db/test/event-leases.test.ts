import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uuidv7 } from "@rehook/core";
import { createTestDatabase, insertDestination, insertUserWithTeam, type TestDatabase } from "../../../tooling/vitest/src/postgres.js";
import {
  adoptExpiredEventLeases,
  claimDueDeliveries,
  completeDeliveries,
  createOrm,
  createPool,
  deleteDestination,
  GroupCommitWriter,
  handBackLeases,
  ownedEventDeliveries,
  retryOwnedEvent,
  type DeliveryOutcome,
  type Orm,
  type Pool,
} from "../src/index.js";

// An event whose only delivery the fast path takes is stored with the lease on its own row and
// no delivery row (one destination costs capture one row, as before routing). Its row is written
// by the attempt's result, by a hand-back, or when the lease expires with its holder gone; a
// late result after any of these changes nothing.

let db: TestDatabase;
let pool: Pool;
let orm: Orm;
let teamId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ databaseUrl: db.url, max: 4 });
  orm = await createOrm({ databaseUrl: db.url, poolSize: 2 });
  teamId = await insertUserWithTeam(db, "leases@example.com");
});
afterAll(async () => {
  await orm.close(true);
  await pool.end();
  await db.drop();
});

/** An endpoint with one destination, and one event captured through the fast path (leased to it). */
async function capturedOnFastPath(): Promise<{ endpointId: string; destinationId: string; eventId: string }> {
  const endpointId = uuidv7();
  const slug = `lease-${endpointId.slice(-12)}`;
  await db.query("insert into endpoints (id, team_id, name, slug, secret) values ($1, $2, $3, $4, 'whsec_x')", [endpointId, teamId, slug, slug]);
  const destinationId = await insertDestination(db, endpointId, "https://example.com/in");
  const writer = new GroupCommitWriter(pool, { fastPath: { leaseMs: 60_000, hasRoom: () => true } });
  const eventId = uuidv7();
  const result = await writer.write({
    id: eventId,
    slug,
    receivedAt: new Date(),
    method: "POST",
    path: "",
    query: "",
    headers: [],
    body: Buffer.from("{}"),
    contentType: "application/json",
    clientIp: null,
    source: "unknown",
    eventType: "unknown",
  });
  expect(result).toMatchObject({ kind: "stored", status: "pending", forwarding: { routes: [{ id: destinationId, leased: true }] } });
  return { endpointId, destinationId, eventId };
}

function outcomeOf(eventId: string, destinationId: string, fields: Partial<DeliveryOutcome> = {}): DeliveryOutcome {
  return {
    id: eventId,
    destinationId,
    attempt: 1,
    otherDeliveries: false,
    heldOn: "event",
    probe: false,
    status: "delivered",
    retryInMs: null,
    startedAt: Date.now(),
    latencyMs: 4,
    responseStatus: 200,
    responseHeaders: [],
    responseBody: null,
    responseTruncated: false,
    error: null,
    ...fields,
  };
}

const deliveryRows = (eventId: string) =>
  db.query<{ status: string; attempts: number; leased: boolean; due: boolean | null }>(
    "select status, attempts, coalesce(lease_expires_at > now(), false) as leased, next_attempt_at <= now() as due from deliveries where event_id = $1",
    [eventId],
  );
const eventRow = async (eventId: string) =>
  (
    await db.query<{ status: string; lease_on: string | null; attempts: number }>(
      "select status, fast_path_destination_id as lease_on, (select count(*)::int from delivery_attempts a where a.event_id = e.id) as attempts from events e where id = $1",
      [eventId],
    )
  )[0]!;

describe("a fast-path lease held on the event", () => {
  it("is shown as the first attempt under way, and a retry by hand finds it in flight", async () => {
    const { destinationId, eventId } = await capturedOnFastPath();
    expect(await deliveryRows(eventId)).toEqual([]);
    expect(await ownedEventDeliveries(orm.em.fork(), teamId, eventId)).toMatchObject([{ destinationId, status: "pending", attempts: 1, nextAttemptAt: null }]);
    expect(await retryOwnedEvent(orm.em.fork(), teamId, eventId)).toEqual({ kind: "not_applicable", status: "pending", inFlight: true, forwards: true });
  });

  it("becomes a delivered row with the attempt's result, and the event delivered", async () => {
    const { destinationId, eventId } = await capturedOnFastPath();
    const completed = await completeDeliveries(pool, [outcomeOf(eventId, destinationId)]);
    expect(completed).toMatchObject([{ id: eventId, destinationId, status: "delivered" }]);
    expect(await deliveryRows(eventId)).toEqual([{ status: "delivered", attempts: 1, leased: false, due: null }]);
    expect(await eventRow(eventId)).toEqual({ status: "delivered", lease_on: null, attempts: 1 });
    // Stored once: the same result again finds no lease on the event and a row already written.
    expect(await completeDeliveries(pool, [outcomeOf(eventId, destinationId)])).toEqual([]);
    expect(await eventRow(eventId)).toEqual({ status: "delivered", lease_on: null, attempts: 1 });
  });

  it("becomes a pending row after a failed attempt with a retry due, claimed later on that row", async () => {
    const { destinationId, eventId } = await capturedOnFastPath();
    const failed = outcomeOf(eventId, destinationId, { status: "failed", retryInMs: 0, responseStatus: 503 });
    expect(await completeDeliveries(pool, [failed])).toMatchObject([{ status: "pending" }]);
    expect(await deliveryRows(eventId)).toEqual([{ status: "pending", attempts: 1, leased: false, due: true }]);
    expect(await eventRow(eventId)).toEqual({ status: "pending", lease_on: null, attempts: 1 });
    const [claimed] = (await claimDueDeliveries(pool, 10, 60_000)).filter((delivery) => delivery.id === eventId);
    expect(claimed).toMatchObject({ attempt: 2 });
    expect(claimed!.heldOn).toBe("delivery");
    await completeDeliveries(pool, [outcomeOf(eventId, destinationId, { attempt: 2, heldOn: "delivery" })]);
    expect(await deliveryRows(eventId)).toEqual([{ status: "delivered", attempts: 2, leased: false, due: null }]);
    expect(await eventRow(eventId)).toEqual({ status: "delivered", lease_on: null, attempts: 2 });
  });

  it("handed back unsent, becomes a row any claim takes as the first attempt", async () => {
    const { destinationId, eventId } = await capturedOnFastPath();
    await handBackLeases(pool, [{ id: eventId, destinationId, attempt: 1, heldOn: "event", probe: false }]);
    expect(await deliveryRows(eventId)).toEqual([{ status: "pending", attempts: 0, leased: false, due: null }]);
    expect((await eventRow(eventId)).lease_on).toBeNull();
    const [claimed] = (await claimDueDeliveries(pool, 10, 60_000)).filter((delivery) => delivery.id === eventId);
    expect(claimed).toMatchObject({ attempt: 1 });
    // The holder's result arriving after its hand-back is not stored: that attempt is the claim's now.
    expect(await completeDeliveries(pool, [outcomeOf(eventId, destinationId)])).toEqual([]);
    expect(await deliveryRows(eventId)).toEqual([{ status: "pending", attempts: 1, leased: true, due: null }]);
  });

  it("expired with its holder gone, becomes a row counting the lost attempt; the holder's late result changes nothing", async () => {
    const { destinationId, eventId } = await capturedOnFastPath();
    const { eventId: live } = await capturedOnFastPath();
    await db.query("update events set fast_path_lease_expires_at = now() - interval '1 second' where id = $1", [eventId]);
    expect(await adoptExpiredEventLeases(pool, 100)).toBe(1);
    expect(await deliveryRows(eventId)).toEqual([{ status: "pending", attempts: 1, leased: false, due: null }]);
    // A lease still running is left with its holder.
    expect(await deliveryRows(live)).toEqual([]);
    expect((await eventRow(live)).lease_on).not.toBeNull();
    const [claimed] = (await claimDueDeliveries(pool, 10, 60_000)).filter((delivery) => delivery.id === eventId);
    expect(claimed).toMatchObject({ attempt: 2 });
    expect(await completeDeliveries(pool, [outcomeOf(eventId, destinationId)])).toEqual([]);
    expect(await eventRow(eventId)).toEqual({ status: "pending", lease_on: null, attempts: 0 });
    expect(await adoptExpiredEventLeases(pool, 100)).toBe(0);
  });

  it("on a destination removed, is cancelled: the event counts as captured and the late result is not stored", async () => {
    const { endpointId, destinationId, eventId } = await capturedOnFastPath();
    expect(await deleteDestination(orm.em.fork(), endpointId, destinationId)).toBe(true);
    expect(await eventRow(eventId)).toEqual({ status: "captured", lease_on: null, attempts: 0 });
    expect(await completeDeliveries(pool, [outcomeOf(eventId, destinationId)])).toEqual([]);
    expect(await deliveryRows(eventId)).toEqual([]);
    expect(
      await db.query("select status, sum(n)::int as n from event_counts where endpoint_id = $1 group by status having sum(n) <> 0", [endpointId]),
    ).toEqual([{ status: "captured", n: 1 }]);
  });
});
