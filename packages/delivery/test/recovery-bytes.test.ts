import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger, uuidv7 } from "@rehook/core";
import { createPool, type Pool } from "@rehook/db";
import { createTestDatabase, insertDestination, insertPersonalTeam, type TestDatabase } from "@rehook/vitest-config/postgres";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { createDeliveryPool, DeliveryDispatcher, type DeliveryPool } from "../src/index.js";

const MiB = 1024 * 1024;
let db: TestDatabase;
let pool: Pool;
let deliveries: DeliveryPool;
let sink: Sink;
/** Requests the sink holds unanswered; the test answers them. */
const held: Array<() => void> = [];
let mostHeld = 0;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ databaseUrl: db.url, max: 2 });
  // Piscina runs JavaScript: the built worker (pnpm test builds first).
  deliveries = createDeliveryPool({ threads: 1, workerFile: fileURLToPath(new URL("../dist/worker.js", import.meta.url)) });
  sink = await startSink((_req, res) => {
    held.push(() => res.end("ok"));
    mostHeld = Math.max(mostHeld, held.length);
  });
});
afterAll(async () => {
  held.splice(0).forEach((answer) => answer());
  await sink.close();
  await deliveries.close();
  await pool.end();
  await db.drop();
});

describe("delivery recovery", () => {
  it("holds a bounded number of body bytes in flight: large pending events are claimed a few at a time", async () => {
    const userId = uuidv7();
    const endpointId = uuidv7();
    await db.query("insert into users (id, email, password_hash) values ($1, 'recovery@example.com', 'x')", [userId]);
    const teamId = await insertPersonalTeam(db, userId);
    await db.query("insert into endpoints (id, team_id, name, slug, secret) values ($1, $2, 'r', 'recovery-aaaaaaaa', 'whsec_x')", [endpointId, teamId]);
    const destinationId = await insertDestination(db, endpointId, `http://127.0.0.1:${sink.port}/in`);
    // Six pending events of 5 MiB nobody holds (as after a crash): the recovery loop's work.
    const ids = Array.from({ length: 6 }, () => uuidv7());
    await db.query(
      `insert into events (id, endpoint_id, received_at, method, path, query, headers, body, size_bytes, source, event_type, status, destination_url)
       select t.id, $1, now(), 'POST', '', '', '[]', convert_to(repeat('r', $2), 'UTF8'), $2, 'unknown', 'unknown', 'pending', $3
       from unnest($4::uuid[]) as t(id)`,
      [endpointId, 5 * MiB, `http://127.0.0.1:${sink.port}/in`, ids],
    );
    await db.query(
      `insert into deliveries (event_id, destination_id, endpoint_id, status) select t.id, $2, $1, 'pending' from unnest($3::uuid[]) as t(id)`,
      [endpointId, destinationId, ids],
    );
    const dispatcher = new DeliveryDispatcher({
      db: pool,
      deliveries,
      timeoutMs: 15_000,
      allowPrivate: true,
      logger: silentLogger,
      recoveryIntervalMs: 50,
      maxRecoveryBytes: 8 * MiB,
    });
    dispatcher.start();
    try {
      // 0 and 5 MiB before the first two (< 8 MiB), then the budget is spent until they are answered.
      await waitFor(() => held.length === 2, "the first claim's two events at the destination");
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(held.length).toBe(2);
      while (sink.received.length < ids.length || held.length > 0) {
        await waitFor(() => held.length > 0, "the next claim at the destination");
        held.splice(0).forEach((answer) => answer());
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await waitFor(async () => (await db.query("select 1 from events where id = any($1::uuid[]) and status = 'delivered'", [ids])).length === ids.length, "every event delivered");
      expect(mostHeld).toBe(2);
      expect(sink.received.every((request) => request.body.byteLength === 5 * MiB)).toBe(true);
    } finally {
      held.splice(0).forEach((answer) => answer());
      await dispatcher.stop();
    }
  });
});
