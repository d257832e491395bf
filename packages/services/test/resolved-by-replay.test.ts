import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUuidV7Generator, uuidv7, type EventStatus } from "@rehook/core";
import { createOrm, type Orm } from "@rehook/db";
import { createTestDatabase, insertPersonalTeam, type TestDatabase } from "../../../tooling/vitest/src/postgres.js";
import { getEvent, listEvents } from "../src/index.js";

// "Resolved by replay": a failed event that a replay delivered keeps its status, is marked on
// the feed's rows and the event's page, and the Failed filter can leave it out.

let db: TestDatabase;
let orm: Orm;
let userId: string;
let teamId: string;
let endpointId: string;
const makeId = createUuidV7Generator();

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await createOrm({ databaseUrl: db.url, poolSize: 2 });
  userId = uuidv7();
  endpointId = uuidv7();
  await db.query("insert into users (id, email, password_hash) values ($1, 'resolved@example.com', 'x')", [userId]);
  teamId = await insertPersonalTeam(db, userId);
  await db.query("insert into endpoints (id, team_id, name, slug, secret) values ($1, $2, 'shop', 'shop-resolved', 'whsec_x')", [endpointId, teamId]);
});
afterAll(async () => {
  await orm.close(true);
  await db.drop();
});

async function event(status: EventStatus, body = "{}"): Promise<string> {
  const id = makeId(Date.now());
  await db.query(
    `insert into events (id, endpoint_id, received_at, method, path, query, headers, body, size_bytes, source, event_type, status)
     values ($1, $2, now(), 'POST', '/orders/7', 'a=1', '[]', convert_to($4, 'UTF8'), octet_length(convert_to($4, 'UTF8')), 'stripe', 'invoice.paid', $3)`,
    [id, endpointId, status, body],
  );
  return id;
}

async function replay(eventId: string, status: "delivered" | "failed"): Promise<void> {
  await db.query(
    `insert into replay_attempts (id, event_id, user_id, environment, destination_url, status, response_status)
     values ($1, $2, $3, 'original', 'http://127.0.0.1:1/', $4, $5)`,
    [uuidv7(), eventId, userId, status, status === "delivered" ? 200 : 500],
  );
}

describe("resolved by replay", () => {
  let resolved: string;
  let replayFailed: string;
  let untouched: string;
  let deliveredReplayed: string;

  beforeAll(async () => {
    resolved = await event("failed", '{"needle":1}');
    await replay(resolved, "failed");
    await replay(resolved, "delivered");
    replayFailed = await event("failed");
    await replay(replayFailed, "failed");
    untouched = await event("failed");
    // A delivered event replayed again is not "resolved": it never needed to be.
    deliveredReplayed = await event("delivered");
    await replay(deliveredReplayed, "delivered");
  });

  it("marks the rows a delivered replay resolved, status unchanged, with path, query and size", async () => {
    const page = await listEvents({ orm }, { teamId });
    const byId = new Map(page.events.map((row) => [row.id, row]));
    expect(byId.get(resolved)).toMatchObject({ status: "failed", resolvedByReplay: true, path: "/orders/7", query: "a=1", sizeBytes: 12 });
    expect(byId.get(replayFailed)!.resolvedByReplay).toBe(false);
    expect(byId.get(untouched)!.resolvedByReplay).toBe(false);
    expect(byId.get(deliveredReplayed)!.resolvedByReplay).toBe(false);
  });

  it("the Failed filter leaves resolved events out when asked, keeps them otherwise", async () => {
    const all = await listEvents({ orm }, { teamId, status: "failed" });
    expect(all.events.map((row) => row.id).sort()).toEqual([resolved, replayFailed, untouched].sort());
    const unresolved = await listEvents({ orm }, { teamId, status: "failed", unresolved: true, withTotal: true });
    expect(unresolved.events.map((row) => row.id).sort()).toEqual([replayFailed, untouched].sort());
    expect(unresolved.total).toEqual({ value: 2, capped: false });
    // Without the status, only failed events are left out: a delivered event replayed stays.
    const anyStatus = await listEvents({ orm }, { teamId, unresolved: true });
    expect(anyStatus.events.map((row) => row.id).sort()).toEqual([replayFailed, untouched, deliveredReplayed].sort());
  });

  it("a search page is marked too", async () => {
    const page = await listEvents({ orm }, { teamId, search: "needle", receivedAfter: new Date(Date.now() - 3_600_000) });
    expect(page.events.map((row) => [row.id, row.resolvedByReplay])).toEqual([[resolved, true]]);
  });

  it("the event's page says so", async () => {
    expect((await getEvent({ orm }, { teamId, eventId: resolved })).resolvedByReplay).toBe(true);
    expect((await getEvent({ orm }, { teamId, eventId: untouched })).resolvedByReplay).toBe(false);
    expect((await getEvent({ orm }, { teamId, eventId: deliveredReplayed })).resolvedByReplay).toBe(false);
  });
});
