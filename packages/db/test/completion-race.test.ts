import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUuidV7Generator, uuidv7 } from "@rehook/core";
import { createTestDatabase, insertUserWithTeam, type TestDatabase } from "../../../tooling/vitest/src/postgres.js";
import { claimDueDeliveries, completeDeliveries, createPool, leaseOf, type ClaimedDelivery, type DeliveryOutcome, type Pool } from "../src/index.js";

// An event fanned out to two destinations, its two deliveries finished at the same moment by
// two instances: each completion sums the event's deliveries, and the second must see the
// first's result, or the event would stay pending with both delivered. One-delivery events
// take no lock of their own (their sum is their delivery's row), and still end delivered.

let db: TestDatabase;
let pools: Pool[];
let teamId: string;
const nextId = createUuidV7Generator(() => 1_800_000_000_000);

beforeAll(async () => {
  db = await createTestDatabase();
  pools = [createPool({ databaseUrl: db.url, max: 4 }), createPool({ databaseUrl: db.url, max: 4 })];
  teamId = await insertUserWithTeam(db, "race@example.com");
});
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end()));
  await db.drop();
});

/** An endpoint with `count` destinations and `events` pending events, each with a delivery to every destination. */
async function fannedOut(count: number, events: number): Promise<string[]> {
  const endpointId = uuidv7();
  await db.query("insert into endpoints (id, team_id, name, slug, secret) values ($1, $2, $3, $4, 'whsec_x')", [endpointId, teamId, endpointId, `s-${endpointId}`]);
  const destinationIds = Array.from({ length: count }, () => uuidv7());
  for (const [position, id] of destinationIds.entries()) {
    await db.query(
      `insert into destinations (id, endpoint_id, position, name, url, created_at, updated_at) values ($1, $2, $3, 'd', 'https://example.com/in', now(), now())`,
      [id, endpointId, position],
    );
  }
  const ids = Array.from({ length: events }, () => nextId());
  await db.query(
    `insert into events (id, endpoint_id, received_at, method, path, query, headers, body, size_bytes, source, event_type, status)
     select t.id, $1, now(), 'POST', '', '', '[]', '\\x7b7d', 2, 'unknown', 'unknown', 'pending' from unnest($2::uuid[]) as t(id)`,
    [endpointId, ids],
  );
  await db.query(
    `insert into deliveries (event_id, destination_id, endpoint_id, status) select e.id, d.id, $1, 'pending' from unnest($2::uuid[]) as e(id), unnest($3::uuid[]) as d(id)`,
    [endpointId, ids, destinationIds],
  );
  await db.query("insert into event_counts (endpoint_id, status, n) values ($1, 'pending', $2)", [endpointId, events]);
  return ids;
}

const delivered = (delivery: ClaimedDelivery): DeliveryOutcome => ({
  ...leaseOf(delivery),
  otherDeliveries: delivery.otherDeliveries,
  status: "delivered",
  retryInMs: null,
  startedAt: Date.now(),
  latencyMs: 5,
  responseStatus: 200,
  responseHeaders: [],
  responseBody: null,
  responseTruncated: false,
  error: null,
});

const statuses = async (ids: string[]) =>
  (await db.query<{ status: string }>("select status from events where id = any($1::uuid[])", [ids])).map((row) => row.status);

describe("completing an event's deliveries from two instances at once", () => {
  it("sums each event once both are in: delivered, never left pending", async () => {
    const ids = await fannedOut(2, 40);
    const claimed = await claimDueDeliveries(pools[0]!, 500, 60_000);
    expect(claimed).toHaveLength(80);
    // The claim tells that each event has another delivery, so completing it takes the event's lock.
    expect(claimed.every((delivery) => delivery.otherDeliveries)).toBe(true);
    // Each event's first delivery goes to one instance, its second to the other, one event per batch, all at once.
    const byEvent = new Map<string, ClaimedDelivery[]>();
    for (const delivery of claimed) byEvent.set(delivery.id, [...(byEvent.get(delivery.id) ?? []), delivery]);
    await Promise.all(
      [...byEvent.values()].flatMap(([first, second]) => [completeDeliveries(pools[0]!, [delivered(first!)]), completeDeliveries(pools[1]!, [delivered(second!)])]),
    );
    expect(await statuses(ids)).toEqual(Array(40).fill("delivered"));
  });

  it("sums a batch that mixes events of one and of two deliveries, each by its own deliveries only", async () => {
    const shared = await fannedOut(2, 30);
    const single = await fannedOut(1, 30);
    const claimed = await claimDueDeliveries(pools[0]!, 500, 60_000);
    expect(claimed).toHaveLength(90);
    const firstOfEach = new Map<string, ClaimedDelivery>();
    for (const delivery of claimed) if (!firstOfEach.has(delivery.id)) firstOfEach.set(delivery.id, delivery);
    const seconds = claimed.filter((delivery) => firstOfEach.get(delivery.id) !== delivery);
    // One batch: the first delivery of every two-delivery event and every one-delivery event's only one.
    await completeDeliveries(pools[0]!, [...firstOfEach.values()].map(delivered));
    expect(await statuses(shared)).toEqual(Array(30).fill("pending")); // their second is still stored pending
    expect(await statuses(single)).toEqual(Array(30).fill("delivered"));
    // The seconds fail for good: each of those events fails, read with its stored first (delivered).
    await completeDeliveries(pools[1]!, seconds.map((delivery) => ({ ...delivered(delivery), status: "failed" as const, responseStatus: 500 })));
    expect(await statuses(shared)).toEqual(Array(30).fill("failed"));
    expect(await statuses(single)).toEqual(Array(30).fill("delivered"));
  });

  it("an event with one delivery ends delivered too", async () => {
    const ids = await fannedOut(1, 20);
    const claimed = await claimDueDeliveries(pools[0]!, 500, 60_000);
    // One statement each, without the event's lock.
    expect(claimed.some((delivery) => delivery.otherDeliveries)).toBe(false);
    await Promise.all(claimed.map((delivery, n) => completeDeliveries(pools[n % 2]!, [delivered(delivery)])));
    expect(await statuses(ids)).toEqual(Array(20).fill("delivered"));
  });
});
