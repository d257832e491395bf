import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uuidv7 } from "@rehook/core";
import { createTestDatabase, insertDestination, insertUserWithTeam, type TestDatabase } from "../../../tooling/vitest/src/postgres.js";
import { createOrm, eventSummariesByIds, findOwnedAttempt, ownedEventAttempts, ownedEventDeliveries, type Orm } from "../src/index.js";

// Where each event went, as its page and the lists read it: every attempt names its destination
// (those stored before routing by the URL their event kept, never "the first destination"),
// and a pending delivery of a paused destination reads paused.

let db: TestDatabase;
let orm: Orm;
let teamId: string;
const endpointId = uuidv7();
let archive = "";
let hooks = "";
let ci = "";

async function event(status: string, destinationUrl: string | null, receivedAt = "now()"): Promise<string> {
  const id = uuidv7();
  await db.query(
    `insert into events (id, endpoint_id, received_at, method, path, query, headers, body, size_bytes, source, event_type, status, destination_url)
     values ($1, $2, ${receivedAt}, 'POST', '', '', '[]', '\\x7b7d', 2, 'generic', 'push', $3, $4)`,
    [id, endpointId, status, destinationUrl],
  );
  return id;
}

const attempt = (eventId: string, destinationId: string | null, number: number, status: number) =>
  db.query(
    `insert into delivery_attempts (event_id, destination_id, attempt, started_at, latency_ms, response_status, outcome)
     values ($1, $2, $3, now(), 5, $4, case when $4 < 300 then 'delivered' else 'failed' end)`,
    [eventId, destinationId, number, status],
  );

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await createOrm({ databaseUrl: db.url, poolSize: 2 });
  teamId = await insertUserWithTeam(db, "history@example.com");
  await db.query("insert into endpoints (id, team_id, name, slug, secret, created_at) values ($1, $2, 'Shop', 'shop-history', 'whsec_x', now() - interval '1 day')", [endpointId, teamId]);
  // The destination that came from the endpoint's destination_url is no longer first: another was put before it.
  archive = await insertDestination(db, endpointId, "http://127.0.0.1:9/archive", { position: 0, name: "Archive" });
  hooks = await insertDestination(db, endpointId, "http://127.0.0.1:9/hooks", { position: 1, name: "Hooks" });
  ci = await insertDestination(db, endpointId, "http://127.0.0.1:9/ci", { position: 2, name: "CI" });
  await db.query(`update destinations set created_at = now() - interval '1 day', filter = '{"headers.x-github-event":"push"}' where id = $1`, [ci]);
});
afterAll(async () => {
  await orm.close(true);
  await db.drop();
});

describe("attempts stored before routing", () => {
  it("went to the destination with the URL their event kept, whatever its position now", async () => {
    const id = await event("failed", "http://127.0.0.1:9/hooks");
    await attempt(id, null, 1, 500);
    await attempt(id, null, 2, 502);
    const em = orm.em.fork();
    expect((await ownedEventAttempts(em, teamId, id)).map((a) => [a.destinationId, a.destinationName, a.destinationUrl, a.attempt])).toEqual([
      [hooks, "Hooks", "http://127.0.0.1:9/hooks", 1],
      [hooks, "Hooks", "http://127.0.0.1:9/hooks", 2],
    ]);
    expect(await ownedEventDeliveries(em, teamId, id)).toEqual([
      { destinationId: hooks, name: "Hooks", url: "http://127.0.0.1:9/hooks", status: "failed", attempts: 2, nextAttemptAt: null, filterReason: null, resolution: null },
    ]);
    expect((await findOwnedAttempt(em, teamId, id, 2, 100, hooks))?.responseStatus).toBe(502);
    expect(await findOwnedAttempt(em, teamId, id, 2, 100, archive)).toBeNull();
  });

  it("went to a removed destination known by its URL when none has that URL now", async () => {
    const id = await event("delivered", "http://127.0.0.1:9/gone");
    await attempt(id, null, 1, 200);
    const em = orm.em.fork();
    expect((await ownedEventAttempts(em, teamId, id)).map((a) => [a.destinationId, a.destinationName, a.destinationUrl])).toEqual([[null, null, "http://127.0.0.1:9/gone"]]);
    expect(await ownedEventDeliveries(em, teamId, id)).toEqual([
      { destinationId: null, name: null, url: "http://127.0.0.1:9/gone", status: "delivered", attempts: 1, nextAttemptAt: null, filterReason: null, resolution: null },
    ]);
    expect((await findOwnedAttempt(em, teamId, id, 1, 100))?.destinationUrl).toBe("http://127.0.0.1:9/gone");
  });
});

describe("delivery states", () => {
  it("reads paused for a pending delivery of a paused destination, on the event and in the list, with filtered ones beside", async () => {
    const id = await event("pending", "http://127.0.0.1:9/archive");
    const due = new Date(Date.now() + 60_000);
    await db.query(
      `insert into deliveries (event_id, destination_id, endpoint_id, status, attempts, next_attempt_at, completed_at)
       values ($1, $2, $4, 'pending', 1, $5, null), ($1, $3, $4, 'pending', 1, $5, null)`,
      [id, archive, hooks, endpointId, due],
    );
    await db.query("update destinations set forwarding_paused_at = now(), paused_reason = '1 consecutive failed attempts' where id = $1", [hooks]);
    try {
      const em = orm.em.fork();
      expect((await ownedEventDeliveries(em, teamId, id)).map((d) => [d.name, d.status, d.nextAttemptAt?.getTime() ?? null])).toEqual([
        ["Archive", "pending", due.getTime()],
        ["Hooks", "paused", due.getTime()],
        ["CI", "filtered", null],
      ]);
      const [row] = await eventSummariesByIds(em, teamId, [id]);
      expect(row!.deliveries).toEqual([
        { destinationId: archive, name: "Archive", status: "pending", nextAttemptAt: due },
        { destinationId: hooks, name: "Hooks", status: "paused", nextAttemptAt: due },
        { destinationId: ci, name: "CI", status: "filtered", nextAttemptAt: null },
      ]);
    } finally {
      await db.query("update destinations set forwarding_paused_at = null, paused_reason = null where id = $1", [hooks]);
    }
  });

  it("lists no filtered destination for an event of before routing (it has no delivery rows)", async () => {
    const id = await event("delivered", "http://127.0.0.1:9/hooks");
    await attempt(id, null, 1, 200);
    const [row] = await eventSummariesByIds(orm.em.fork(), teamId, [id]);
    expect(row!.deliveries).toEqual([]);
  });
});
