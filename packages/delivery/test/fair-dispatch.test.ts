import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createUuidV7Generator, silentLogger, uuidv7 } from "@rehook/core";
import { createPool, type ClaimedDelivery, type Pool } from "@rehook/db";
import { createTestDatabase, insertDestination, insertUserWithTeam, type TestDatabase } from "@rehook/vitest-config/postgres";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { createDeliveryPool, DeliveryDispatcher, type DeliveryPool } from "../src/index.js";

// A destination that never answers must not take the others' delivery capacity, whether its
// events come from a recovery claim or from the capture fast path.

let db: TestDatabase;
let pool: Pool;
let deliveries: DeliveryPool;
let hanging: Sink;
let healthy: Sink;
/** Requests the hanging destination holds open; the test lets them go at the end. */
const held: Array<() => void> = [];
let mostHeld = 0;
let teamId: string;
const nextId = createUuidV7Generator(() => 1_800_000_000_000);

/** An endpoint forwarding to the sink: its id and its (first) destination's, the dispatcher's unit of fairness. */
interface Target {
  id: string;
  destinationId: string;
}

async function endpoint(sink: Sink): Promise<Target> {
  const id = uuidv7();
  await db.query("insert into endpoints (id, team_id, name, slug, secret) values ($1, $2, $3, $4, 'whsec_x')", [id, teamId, id, `s-${id}`]);
  return { id, destinationId: await insertDestination(db, id, `http://127.0.0.1:${sink.port}/in`) };
}

/** Stores pending events for the endpoint, each with its delivery, oldest first: unleased, or leased as the fast path stores them. */
async function pending(target: Target, count: number, leased = false): Promise<ClaimedDelivery[]> {
  const ids = Array.from({ length: count }, () => nextId());
  const [row] = await db.query<{ url: string }>("select url from destinations where id = $1", [target.destinationId]);
  const destinationUrl = row!.url;
  await db.query(
    `insert into events (id, endpoint_id, received_at, method, path, query, headers, body, size_bytes, source, event_type, status, destination_url)
     select t.id, $1, now(), 'POST', '', '', '[]', '\\x7b7d', 2, 'unknown', 'unknown', 'pending', $3
     from unnest($2::uuid[]) as t(id)`,
    [target.id, ids, destinationUrl],
  );
  await db.query(
    `insert into deliveries (event_id, destination_id, endpoint_id, status, attempts, lease_expires_at)
     select t.id, $2, $1, 'pending', case when $4 then 1 else 0 end, case when $4 then now() + interval '10 minutes' end
     from unnest($3::uuid[]) as t(id)`,
    [target.id, target.destinationId, ids, leased],
  );
  return ids.map((id) => ({
    id,
    endpointId: target.id,
    destinationId: target.destinationId,
    method: "POST",
    path: "",
    query: "",
    headers: [],
    body: Buffer.from("{}"),
    destinationUrl,
    signRequests: false,
    secret: "whsec_x",
    keepProxyHeaders: false,
    // As the fast path stores it: leased for its first attempt (on its row), no retries, no rate limit, no breaker.
    attempt: 1,
    heldOn: "delivery",
    probe: false,
    takenAt: Date.now(),
    retryPolicy: null,
    ratePerSecond: null,
    breaker: false,
    otherDeliveries: false,
  }));
}

const statusCount = async (target: Target, status: string) =>
  Number((await db.query<{ n: string }>("select count(*) as n from events where endpoint_id = $1 and status = $2", [target.id, status]))[0]!.n);

function dispatcher(): DeliveryDispatcher {
  return new DeliveryDispatcher({
    db: pool,
    deliveries,
    // Never reached here: the hanging destination stays hanging for the whole test.
    timeoutMs: 60_000,
    allowPrivate: true,
    logger: silentLogger,
    recoveryIntervalMs: 50,
    maxInFlight: 10,
    maxInFlightPerDestination: 3,
  });
}

async function release(running: DeliveryDispatcher): Promise<void> {
  held.splice(0).forEach((answer) => answer());
  await running.stop();
}

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ databaseUrl: db.url, max: 2 });
  // Piscina runs JavaScript: the built worker (pnpm test builds first).
  deliveries = createDeliveryPool({ threads: 1, workerFile: fileURLToPath(new URL("../dist/worker.js", import.meta.url)) });
  hanging = await startSink((_req, res) => {
    held.push(() => res.end("late"));
    mostHeld = Math.max(mostHeld, held.length);
  });
  healthy = await startSink((_req, res) => res.end("ok"));
  teamId = await insertUserWithTeam(db, "fair@example.com");
});
beforeEach(() => {
  mostHeld = 0;
});
afterAll(async () => {
  held.splice(0).forEach((answer) => answer());
  await hanging.close();
  await healthy.close();
  await deliveries.close();
  await pool.end();
  await db.drop();
});

describe("fair delivery", () => {
  it("recovery: an older backlog for a hanging destination holds its cap in flight while another endpoint's events are delivered", async () => {
    const stuck = await endpoint(hanging);
    const other = await endpoint(healthy);
    // Oldest first, the stuck endpoint's 30 events alone would fill this instance's room of 10.
    await pending(stuck, 30);
    await pending(other, 4);
    const running = dispatcher();
    running.start();
    try {
      await waitFor(async () => (await statusCount(other, "delivered")) === 4, "the other endpoint's events delivered");
      expect(held.length).toBe(3);
      expect(await statusCount(stuck, "pending")).toBe(30);
      // Its cap in flight and at most one cap's worth waiting for a slot; the rest stays unleased.
      await waitFor(() => running.load(stuck.destinationId).waiting === 3, "a cap's worth waiting for the stuck endpoint");
      expect(running.load(stuck.destinationId)).toEqual({ running: 3, waiting: 3 });
      const [leased] = await db.query<{ n: string }>("select count(*) as n from deliveries where destination_id = $1 and lease_expires_at is not null", [stuck.destinationId]);
      expect(Number(leased!.n)).toBe(6);
      expect(mostHeld).toBe(3);
    } finally {
      await release(running);
    }
  });

  it("fast path: a hanging destination's events wait up to a bound and the rest go back to the database, so the fast path keeps room", async () => {
    const stuck = await endpoint(hanging);
    const other = await endpoint(healthy);
    const stuckEvents = await pending(stuck, 30, true);
    const running = dispatcher();
    // No recovery loop: only the fast path's own events are in play.
    try {
      stuckEvents.forEach((event) => running.deliverLeased(event));
      await waitFor(() => held.length === 3, "the stuck endpoint's cap in flight");
      // Room 10: at most half waits (5); the 22 others are handed back unleased, attempts undone.
      await waitFor(async () => {
        const [row] = await db.query<{ n: string }>("select count(*) as n from deliveries where destination_id = $1 and lease_expires_at is null and attempts = 0", [stuck.destinationId]);
        return Number(row!.n) === 22;
      }, "the overflow handed back");
      expect(running.load(stuck.destinationId)).toEqual({ running: 3, waiting: 5 });
      expect(running.hasRoom()).toBe(true);
      const otherEvents = await pending(other, 5, true);
      otherEvents.forEach((event) => running.deliverLeased(event));
      await waitFor(async () => (await statusCount(other, "delivered")) === 5, "the other endpoint's events delivered");
      expect(mostHeld).toBe(3);
      expect(await statusCount(stuck, "pending")).toBe(30);
    } finally {
      await release(running);
    }
    // Let go, the held ones are answered and the waiting ones follow within the cap.
    expect(mostHeld).toBe(3);
  });
});
