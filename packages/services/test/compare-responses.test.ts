import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uuidv7 } from "@rehook/core";
import { createOrm, type Orm } from "@rehook/db";
import { createTestDatabase, insertDestination, insertPersonalTeam, type TestDatabase } from "../../../tooling/vitest/src/postgres.js";
import { compareResponses, listEventResponses } from "../src/index.js";

let db: TestDatabase;
let orm: Orm;
let teamId: string;
let otherTeamId: string;
const userId = uuidv7();
const otherUserId = uuidv7();
const endpointId = uuidv7();
const eventId = uuidv7();
const otherEventId = uuidv7();
const replayId = uuidv7();
const otherReplayId = uuidv7();

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await createOrm({ databaseUrl: db.url, poolSize: 2 });
  await db.query("insert into users (id, email, password_hash) values ($1, 'compare@example.com', 'x'), ($2, 'other@example.com', 'x')", [userId, otherUserId]);
  teamId = await insertPersonalTeam(db, userId);
  otherTeamId = await insertPersonalTeam(db, otherUserId);
  await db.query(
    "insert into endpoints (id, team_id, name, slug, secret) values ($1, $2, 'shop', 'shop-compare', 'whsec_x')",
    [endpointId, teamId],
  );
  const destinationId = await insertDestination(db, endpointId, "http://127.0.0.1:9/hooks");
  for (const id of [eventId, otherEventId]) {
    await db.query(
      `insert into events (id, endpoint_id, received_at, method, path, query, headers, body, size_bytes, source, event_type, status, destination_url)
       values ($1, $2, now(), 'POST', '', '', '[]', '\\x7b7d', 2, 'generic', 'order.created', 'failed', 'http://127.0.0.1:9/hooks')`,
      [id, endpointId],
    );
    await db.query("insert into deliveries (event_id, destination_id, endpoint_id, status, attempts, completed_at) values ($1, $2, $3, 'failed', 1, now())", [
      id,
      destinationId,
      endpointId,
    ]);
  }
  await db.query(
    `insert into delivery_attempts (event_id, destination_id, attempt, started_at, latency_ms, response_status, response_headers, response_body, outcome)
     values ($1, $2, 1, now(), 12, 500, '[["Content-Type","application/json"]]', convert_to('{"ok":false}', 'UTF8'), 'failed')`,
    [eventId, destinationId],
  );
  await db.query(
    `insert into replay_attempts (id, event_id, user_id, environment, destination_url, status, response_status, response_headers, response_body, latency_ms)
     values ($1, $2, $4, 'original', 'http://127.0.0.1:9/hooks', 'delivered', 200, '[["content-type","application/json"],["X-Extra","1"]]', convert_to('{"ok":true}', 'UTF8'), 7),
            ($3, $5, $4, 'original', 'http://127.0.0.1:9/hooks', 'delivered', 200, null, null, 7)`,
    [replayId, eventId, otherReplayId, userId, otherEventId],
  );
});
afterAll(async () => {
  await orm.close(true);
  await db.drop();
});

describe("compareResponses", () => {
  it("lists the original delivery then the replays", async () => {
    const options = await listEventResponses({ orm }, { teamId, eventId });
    expect(options.map((option) => [option.ref, option.label, option.status])).toEqual([
      ["delivery:1", "Original delivery", 500],
      [`replay:${replayId}`, "Replay (original)", 200],
    ]);
  });

  it("compares status, headers and the normalised body", async () => {
    const result = await compareResponses({ orm }, { teamId, eventId, left: "delivery:1", right: `replay:${replayId}` });
    expect(result.left).toMatchObject({ status: 500, latencyMs: 12, kind: "delivery" });
    expect(result.right).toMatchObject({ status: 200, latencyMs: 7, kind: "replay" });
    expect(result.statusChanged).toBe(true);
    expect(result.headers).toEqual([
      { name: "Content-Type", kind: "same", left: "application/json", right: "application/json" },
      { name: "X-Extra", kind: "added", left: null, right: "1" },
    ]);
    expect(result.body.kind === "lines" && result.body.lines.filter((line) => line.kind !== "same").map((line) => line.text)).toEqual(['  "ok": false', '  "ok": true']);
  });

  it("answers not found for another team's event, another event's replay or a missing attempt; refuses a malformed reference", async () => {
    await expect(compareResponses({ orm }, { teamId: otherTeamId, eventId, left: "delivery:1", right: "delivery:1" })).rejects.toMatchObject({
      code: "not_found",
      message: `There is no event with the id ${eventId}. It may have been deleted already.`,
    });
    await expect(compareResponses({ orm }, { teamId, eventId, left: "delivery:1", right: `replay:${otherReplayId}` })).rejects.toMatchObject({ code: "not_found" });
    await expect(compareResponses({ orm }, { teamId, eventId, left: "delivery:2", right: "delivery:1" })).rejects.toMatchObject({ code: "not_found" });
    await expect(compareResponses({ orm }, { teamId, eventId, left: "nonsense", right: "delivery:1" })).rejects.toMatchObject({ code: "validation_failed" });
  });
});
