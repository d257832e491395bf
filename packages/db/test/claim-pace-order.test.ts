import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createUuidV7Generator, uuidv7 } from "@rehook/core";
import { createTestDatabase, insertUserWithTeam, type TestDatabase } from "../../../tooling/vitest/src/postgres.js";
import { claimDueDeliveries, completeDeliveries, createPool, leaseOf, type ClaimedDelivery, type DeliveryOutcome, type Pool } from "../src/index.js";

// The claim's pace and order rules, decided in the database: a rate-limited destination
// books its starts 1/rate apart, however many instances claim at once; an
// ordered one gives its oldest pending delivery only, and nothing while that one waits for
// its retry. Time is moved in the database (the schedule's next start), never waited for.

let db: TestDatabase;
let pools: Pool[];
let teamId: string;
const nextId = createUuidV7Generator(() => 1_800_000_000_000);
const LEASE_MS = 60_000;

/** An endpoint with one destination; answers the destination's id. */
async function destination(settings: { rate?: number; ordered?: boolean }): Promise<{ endpointId: string; destinationId: string }> {
  const endpointId = uuidv7();
  const destinationId = uuidv7();
  await db.query("insert into endpoints (id, team_id, name, slug, secret) values ($1, $2, $3, $4, 'whsec_x')", [endpointId, teamId, endpointId, `s-${endpointId}`]);
  await db.query(
    `insert into destinations (id, endpoint_id, position, name, url, rate_limit_per_second, ordered, retry_max_attempts, retry_initial_delay_ms, retry_max_delay_ms, created_at, updated_at)
     values ($1, $2, 0, 'd', 'https://example.com/in', $3::int, $4::boolean, 3, 1000, 1000, now(), now())`,
    [destinationId, endpointId, settings.rate ?? null, settings.ordered ?? false],
  );
  return { endpointId, destinationId };
}

/** Pending events with their deliveries, nobody holding them, oldest first. */
async function pending(target: { endpointId: string; destinationId: string }, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, () => nextId());
  await db.query(
    `insert into events (id, endpoint_id, received_at, method, path, query, headers, body, size_bytes, source, event_type, status)
     select t.id, $1, now(), 'POST', '', '', '[]', '\\x7b7d', 2, 'unknown', 'unknown', 'pending' from unnest($2::uuid[]) as t(id)`,
    [target.endpointId, ids],
  );
  await db.query(`insert into deliveries (event_id, destination_id, endpoint_id, status) select t.id, $1, $2, 'pending' from unnest($3::uuid[]) as t(id)`, [
    target.destinationId,
    target.endpointId,
    ids,
  ]);
  return ids;
}

const claim = (pool: Pool) => claimDueDeliveries(pool, 500, LEASE_MS);
const ids = (claimed: ClaimedDelivery[]) => claimed.map((delivery) => delivery.id);

function failed(delivery: ClaimedDelivery, retryInMs: number | null): DeliveryOutcome {
  return {
    ...leaseOf(delivery),
    otherDeliveries: delivery.otherDeliveries,
    status: "failed",
    retryInMs,
    startedAt: Date.now(),
    latencyMs: 5,
    responseStatus: 500,
    responseHeaders: [],
    responseBody: null,
    responseTruncated: false,
    error: null,
  };
}

const delivered = (delivery: ClaimedDelivery): DeliveryOutcome => ({ ...failed(delivery, null), status: "delivered", responseStatus: 200 });

beforeAll(async () => {
  db = await createTestDatabase();
  pools = [createPool({ databaseUrl: db.url, max: 2 }), createPool({ databaseUrl: db.url, max: 2 })];
  teamId = await insertUserWithTeam(db, "pace@example.com");
});
beforeEach(async () => {
  await db.query("delete from deliveries");
  await db.query("delete from events");
});
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end()));
  await db.drop();
});

describe("a rate-limited destination", () => {
  /** Moves the destination's schedule (its next free start) `ms` into the past. */
  const back = (destinationId: string, ms: number) =>
    db.query(`update destinations set rate_next_start_at = rate_next_start_at - make_interval(secs => $2::float8 / 1000) where id = $1`, [destinationId, ms]);
  const slots = (claimed: ClaimedDelivery[]) => claimed.map((delivery) => delivery.startInMs ?? 0);

  it("books the next second's starts, 1/rate apart, and a second instance gets none of them", async () => {
    const paced = await destination({ rate: 20 });
    const free = await destination({});
    const backlog = await pending(paced, 100);
    await pending(free, 30);
    const before = Date.now();
    const first = await claim(pools[0]!);
    const second = await claim(pools[1]!);
    const elapsed = Date.now() - before;
    const firstPaced = first.filter((d) => d.destinationId === paced.destinationId);
    expect(ids(firstPaced)).toEqual(backlog.slice(0, 20));
    expect(slots(firstPaced)).toEqual(Array.from({ length: 20 }, (_, k) => k * 50));
    expect(firstPaced.every((d) => d.ratePerSecond === 20)).toBe(true);
    // The unpaced destination gives all it has, at once.
    expect(first.filter((d) => d.destinationId === free.destinationId).map((d) => d.startInMs)).toEqual(Array(30).fill(undefined));
    // The other instance may only book the slots that came into the look-ahead since: one per 50 ms passed, none sooner than the first's last + 50 ms.
    expect(second.length).toBeLessThanOrEqual(1 + Math.floor(elapsed / 50));
    expect(ids(second)).toEqual(backlog.slice(20, 20 + second.length));
    for (const slot of slots(second)) expect(slot).toBeGreaterThanOrEqual(1_000 - elapsed);
  });

  it("two instances claiming at the same moment book disjoint slots", async () => {
    const paced = await destination({ rate: 20 });
    await pending(paced, 100);
    const [a, b] = await Promise.all([claim(pools[0]!), claim(pools[1]!)]);
    const taken = [...a, ...b];
    expect(new Set(ids(taken)).size).toBe(taken.length);
    // One second's worth between them, plus at most a slot or two come into view while the second waited for the row.
    expect(taken.length).toBeGreaterThanOrEqual(20);
    expect(taken.length).toBeLessThanOrEqual(22);
    const [one, other] = a.length >= b.length ? [a, b] : [b, a];
    expect(slots(one)).toEqual(Array.from({ length: one.length }, (_, k) => k * 50));
    for (const slot of slots(other)) expect(slot).toBeGreaterThan(900);
  });

  it("never books the past: however long it waited, a claim starts from now", async () => {
    const paced = await destination({ rate: 20 });
    const backlog = await pending(paced, 100);
    await claim(pools[0]!);
    await back(paced.destinationId, 60_000);
    const again = await claim(pools[0]!);
    expect(ids(again)).toEqual(backlog.slice(20, 40));
    expect(slots(again)).toEqual(Array.from({ length: 20 }, (_, k) => k * 50));
  });

  it("one a second: a slot now, the next a second on, then nothing until the schedule moves", async () => {
    const paced = await destination({ rate: 1 });
    const backlog = await pending(paced, 5);
    const [now] = await claim(pools[0]!);
    expect(now).toMatchObject({ id: backlog[0] });
    expect(now!.startInMs).toBeUndefined();
    const before = Date.now();
    const [next] = await claim(pools[1]!);
    expect(next!.id).toBe(backlog[1]);
    expect(next!.startInMs).toBeGreaterThanOrEqual(1_000 - (Date.now() - before) - 50);
    expect(next!.startInMs).toBeLessThanOrEqual(1_000);
    expect(await claim(pools[0]!)).toEqual([]);
    await back(paced.destinationId, 1_000);
    expect(ids(await claim(pools[1]!))).toEqual([backlog[2]]);
  });
});

describe("an ordered destination", () => {
  it("gives its oldest pending delivery only, holds the rest while it waits for its retry, and moves on once it is final", async () => {
    const ordered = await destination({ ordered: true });
    const [first, second, third] = await pending(ordered, 3);

    const [head] = await claim(pools[0]!);
    expect(head!.id).toBe(first);
    // Held by its claim: neither instance gets anything else meanwhile.
    expect(await claim(pools[1]!)).toEqual([]);

    // It fails with a retry ahead: still nothing after it is sent.
    await completeDeliveries(pools[0]!, [failed(head!, 60_000)]);
    expect(await claim(pools[1]!)).toEqual([]);

    // The retry comes due and delivers: then, and only then, the next.
    await db.query("update deliveries set next_attempt_at = now() where event_id = $1", [first]);
    const [retry] = await claim(pools[1]!);
    expect(retry).toMatchObject({ id: first, attempt: 2 });
    await completeDeliveries(pools[1]!, [delivered(retry!)]);
    const [next] = await claim(pools[0]!);
    expect(next!.id).toBe(second);

    // A final failure also lets the next one go.
    await completeDeliveries(pools[0]!, [failed(next!, null)]);
    expect(ids(await claim(pools[0]!))).toEqual([third]);
  });
});
