import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createUuidV7Generator, silentLogger, uuidv7 } from "@rehook/core";
import { createPool, type ClaimedEvent, type Pool } from "@rehook/db";
import { createTestDatabase, insertPersonalTeam, type TestDatabase } from "@rehook/vitest-config/postgres";
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

async function endpoint(sink: Sink): Promise<string> {
  const id = uuidv7();
  await db.query("insert into endpoints (id, team_id, name, slug, destination_url, secret) values ($1, $2, $3, $4, $5, 'whsec_x')", [
    id,
    teamId,
    id,
    `s-${id}`,
    `http://127.0.0.1:${sink.port}/in`,
  ]);
  return id;
}

/** Stores pending events for the endpoint, oldest first: unleased, or leased as the fast path stores them. */
async function pending(endpointId: string, count: number, leased = false): Promise<ClaimedEvent[]> {
  const ids = Array.from({ length: count }, () => nextId());
  await db.query(
    `insert into events (id, endpoint_id, received_at, method, path, query, headers, body, size_bytes, source, event_type, status,
                         destination_url, lease_expires_at, attempts)
     select t.id, p.id, now(), 'POST', '', '', '[]', '\\x7b7d', 2, 'unknown', 'unknown', 'pending', p.destination_url,
            case when $3 then now() + interval '10 minutes' end, case when $3 then 1 else 0 end
     from unnest($2::uuid[]) as t(id), endpoints p where p.id = $1`,
    [endpointId, ids, leased],
  );
  const [row] = await db.query<{ destination_url: string }>("select destination_url from endpoints where id = $1", [endpointId]);
  const destinationUrl = row!.destination_url;
  return ids.map((id) => ({
    id,
    endpointId,
    method: "POST",
    path: "",
    query: "",
    headers: [],
    body: Buffer.from("{}"),
    destinationUrl,
    signRequests: false,
    secret: "whsec_x",
    keepProxyHeaders: false,
    // As the fast path stores it: leased for its first attempt, no retries.
    attempt: 1,
    retryPolicy: null,
  }));
}

const statusCount = async (endpointId: string, status: string) =>
  Number((await db.query<{ n: string }>("select count(*) as n from events where endpoint_id = $1 and status = $2", [endpointId, status]))[0]!.n);

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
  const userId = uuidv7();
  await db.query("insert into users (id, email, password_hash) values ($1, 'fair@example.com', 'x')", [userId]);
  teamId = await insertPersonalTeam(db, userId);
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
      await waitFor(() => running.load(stuck).waiting === 3, "a cap's worth waiting for the stuck endpoint");
      expect(running.load(stuck)).toEqual({ running: 3, waiting: 3 });
      const [leased] = await db.query<{ n: string }>("select count(*) as n from events where endpoint_id = $1 and lease_expires_at is not null", [stuck]);
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
        const [row] = await db.query<{ n: string }>("select count(*) as n from events where endpoint_id = $1 and lease_expires_at is null and attempts = 0", [stuck]);
        return Number(row!.n) === 22;
      }, "the overflow handed back");
      expect(running.load(stuck)).toEqual({ running: 3, waiting: 5 });
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
