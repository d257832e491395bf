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
/** Fanned out to Billing (200) and CI (500), each with its attempt 1; replayed to CI and to a custom URL. */
const fannedId = uuidv7();
const ciReplayId = uuidv7();
const customReplayId = uuidv7();
const localReplayId = uuidv7();
/** Forwarded before routing (attempts without destination_id): to the first destination's URL, and to a URL no destination has now. */
const preRoutingId = uuidv7();
const orphanedId = uuidv7();
let destinationId = "";
let billingId = "";
let ciId = "";

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
  destinationId = await insertDestination(db, endpointId, "http://127.0.0.1:9/hooks");
  billingId = await insertDestination(db, endpointId, "http://127.0.0.1:9/billing", { position: 1, name: "Billing" });
  ciId = await insertDestination(db, endpointId, "http://127.0.0.1:9/ci", { position: 2, name: "CI" });
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
beforeAll(async () => {
  const event = (id: string, destinationUrl: string) =>
    db.query(
      `insert into events (id, endpoint_id, received_at, method, path, query, headers, body, size_bytes, source, event_type, status, destination_url)
       values ($1, $2, now(), 'POST', '/sub', 'a=1', '[]', '\\x7b7d', 2, 'generic', 'push', 'failed', $3)`,
      [id, endpointId, destinationUrl],
    );
  const attempt = (id: string, destination: string | null, status: number, body: string) =>
    db.query(
      `insert into delivery_attempts (event_id, destination_id, attempt, started_at, latency_ms, response_status, response_headers, response_body, outcome)
       values ($1, $2, 1, now(), 5, $3, '[]', convert_to($4, 'UTF8'), case when $3 < 300 then 'delivered' else 'failed' end)`,
      [id, destination, status, body],
    );
  await event(fannedId, "http://127.0.0.1:9/billing");
  await db.query(
    `insert into deliveries (event_id, destination_id, endpoint_id, status, attempts, completed_at) values ($1, $2, $4, 'delivered', 1, now()), ($1, $3, $4, 'failed', 1, now())`,
    [fannedId, billingId, ciId, endpointId],
  );
  await attempt(fannedId, billingId, 200, '{"to":"billing"}');
  await attempt(fannedId, ciId, 500, '{"to":"ci"}');
  await db.query(
    `insert into replay_attempts (id, event_id, user_id, environment, destination_url, status, response_status, destination_id, local_via)
     values ($1, $4, $5, 'original', 'http://127.0.0.1:9/ci/sub?a=1', 'delivered', 200, $6, null),
            ($2, $4, $5, 'custom', 'https://scratch.example/x', 'delivered', 200, null, null),
            ($3, $4, $5, 'local', 'http://localhost:3000/sub?a=1', 'delivered', 200, null, 'listen')`,
    [ciReplayId, customReplayId, localReplayId, fannedId, userId, ciId],
  );
  await event(preRoutingId, "http://127.0.0.1:9/hooks");
  await attempt(preRoutingId, null, 500, "{}");
  await event(orphanedId, "http://127.0.0.1:9/gone");
  await attempt(orphanedId, null, 500, "{}");
});
afterAll(async () => {
  await orm.close(true);
  await db.drop();
});

describe("compareResponses", () => {
  it("lists the original delivery then the replays", async () => {
    const options = await listEventResponses({ orm }, { teamId, eventId });
    expect(options.map((option) => [option.ref, option.label, option.status])).toEqual([
      [`delivery:${destinationId}:1`, "Original delivery", 500],
      [`replay:${replayId}`, "Replay (original)", 200],
    ]);
  });

  it("compares status, headers and the normalised body", async () => {
    const result = await compareResponses({ orm }, { teamId, eventId, left: `delivery:${destinationId}:1`, right: `replay:${replayId}` });
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
    await expect(compareResponses({ orm }, { teamId, eventId, left: `delivery:${billingId}:1`, right: "delivery:1" })).rejects.toMatchObject({ code: "not_found" });
    await expect(compareResponses({ orm }, { teamId, eventId, left: "nonsense", right: "delivery:1" })).rejects.toMatchObject({ code: "validation_failed" });
  });
});

describe("compareResponses across destinations", () => {
  it("lists every destination's attempt under its own reference, each labelled with its own destination, and each replay with where it went", async () => {
    const options = await listEventResponses({ orm }, { teamId, eventId: fannedId });
    expect(options.map((option) => [option.ref, option.label, option.destinationLabel, option.destinationUrl, option.status])).toEqual([
      [`delivery:${billingId}:1`, "Original delivery", "Billing", "http://127.0.0.1:9/billing/sub?a=1", 200],
      [`delivery:${ciId}:1`, "Original delivery", "CI", "http://127.0.0.1:9/ci/sub?a=1", 500],
      [`replay:${ciReplayId}`, "Replay (original)", "CI", "http://127.0.0.1:9/ci/sub?a=1", 200],
      [`replay:${customReplayId}`, "Replay (custom)", "custom URL", "https://scratch.example/x", 200],
      [`replay:${localReplayId}`, "Replay (local)", "local via listen", "http://localhost:3000/sub?a=1", 200],
    ]);
    expect(new Set(options.map((option) => option.ref)).size).toBe(options.length);
  });

  it("compares the two destinations' first attempts, each side with its own destination; a bare number naming both is refused", async () => {
    const result = await compareResponses({ orm }, { teamId, eventId: fannedId, left: `delivery:${billingId}:1`, right: `delivery:${ciId}:1` });
    expect([result.left.destinationLabel, result.left.destinationUrl, result.left.status]).toEqual(["Billing", "http://127.0.0.1:9/billing/sub?a=1", 200]);
    expect([result.right.destinationLabel, result.right.destinationUrl, result.right.status]).toEqual(["CI", "http://127.0.0.1:9/ci/sub?a=1", 500]);
    const replay = await compareResponses({ orm }, { teamId, eventId: fannedId, left: `delivery:${ciId}:1`, right: `replay:${ciReplayId}` });
    expect(replay.right.destination).toEqual({ kind: "destination", destinationId: ciId, name: "CI", url: "http://127.0.0.1:9/ci/sub?a=1" });
    await expect(compareResponses({ orm }, { teamId, eventId: fannedId, left: "delivery:1", right: `delivery:${ciId}:1` })).rejects.toMatchObject({
      code: "validation_failed",
      message: expect.stringContaining(`delivery:${billingId}:1`),
    });
  });

  it("names the destination of attempts stored before routing by the URL the event kept, or a removed one by that URL", async () => {
    const [resolved] = await listEventResponses({ orm }, { teamId, eventId: preRoutingId });
    expect([resolved!.ref, resolved!.destinationLabel, resolved!.destinationUrl]).toEqual([`delivery:${destinationId}:1`, "127.0.0.1", "http://127.0.0.1:9/hooks/sub?a=1"]);
    const [orphan] = await listEventResponses({ orm }, { teamId, eventId: orphanedId });
    expect([orphan!.ref, orphan!.destinationLabel, orphan!.destinationUrl]).toEqual(["delivery:1", "Removed destination", "http://127.0.0.1:9/gone/sub?a=1"]);
    expect((await compareResponses({ orm }, { teamId, eventId: orphanedId, left: "delivery:1", right: "delivery:1" })).left.destinationLabel).toBe("Removed destination");
  });
});
