import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "@rehook/vitest-config/postgres";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { runCli } from "./run-cli.js";

// rehook replay <event id> --to original|staging|local|custom|matched|failed|<url>
// [--destination <id or name>]: sends the stored event from the CLI's process, records each
// attempt, prints them; exit 0 once recorded, whatever the answers.

const OWNER = "replays@example.com";
let db: TestDatabase;
let env: Record<string, string>;
/** The endpoint's destination, and a second server for staging and custom replays. */
let destination: Sink;
let elsewhere: Sink;
let answerWith = 200;
let endpoint: { id: string; slug: string };
let eventId: string;

interface StoredAttempt {
  environment: string;
  status: string;
  response_status: number | null;
  destination_url: string;
}

const attempt = async (id: string) => (await db.query<StoredAttempt>("select environment, status, response_status, destination_url from replay_attempts where id = $1", [id]))[0];

function expectOneLineError(result: { code: number | null; stderr: string }, code: number, pattern: RegExp) {
  expect(result.code).toBe(code);
  expect(result.stderr.trim().split("\n")).toHaveLength(1);
  expect(result.stderr).toMatch(pattern);
}

beforeAll(async () => {
  db = await createTestDatabase();
  destination = await startSink((_req, res) => {
    res.statusCode = answerWith;
    res.end(answerWith === 200 ? "ok from original" : "broken");
  });
  elsewhere = await startSink((_req, res) => res.end("ok from elsewhere"));
  env = { DATABASE_URL: db.url, ALLOW_PRIVATE_DESTINATIONS: "true" };
  expect((await runCli(["user", "create", "--email", OWNER, "--password", "long enough"], env)).code).toBe(0);
  const created = await runCli(["endpoint", "create", "--email", OWNER, "--name", "orders", "--destination", `http://127.0.0.1:${destination.port}/in`], env);
  endpoint = JSON.parse(created.stdout) as { id: string; slug: string };
  const [row] = await db.query<{ id: string }>(
    `insert into events (id, endpoint_id, received_at, method, path, query, headers, body, content_type, size_bytes, source, event_type, status)
     values ('0190f3c4-1111-7000-8000-000000000001', $1, now(), 'POST', '/sub', 'x=1', '[["content-type","application/json"],["x-custom","kept"]]'::jsonb,
             convert_to('{"order":42}', 'UTF8'), 'application/json', 12, 'unknown', 'unknown', 'failed')
     returning id`,
    [endpoint.id],
  );
  eventId = row!.id;
}, 180_000);
afterAll(async () => {
  await destination?.close();
  await elsewhere?.close();
  await db?.drop();
});

describe("rehook replay", () => {
  it("--to original sends the stored request to the endpoint's destination, prints the attempt and records it", async () => {
    const result = await runCli(["replay", eventId, "--email", OWNER, "--to", "original"], env);
    expect(result.code).toBe(0);
    const [heading, to, outcome] = result.stdout.split("\n");
    const id = /^Replay (\S+) of event (\S+)$/.exec(heading!)!;
    expect(id[2]).toBe(eventId);
    expect(to).toBe(`  to       http://127.0.0.1:${destination.port}/in/sub?x=1 (original)`);
    expect(outcome).toMatch(/^ {2}outcome {2}delivered: 200 in \d+ ms$/);
    expect(result.stdout).toContain("Response body\nok from original\n");
    const sent = destination.received.at(-1)!;
    expect(sent).toMatchObject({ method: "POST", url: "/in/sub?x=1" });
    expect(sent.body.toString()).toBe('{"order":42}');
    expect(sent.rawHeaders).toContain("kept");
    expect(await attempt(id[1]!)).toEqual({ environment: "original", status: "delivered", response_status: 200, destination_url: `http://127.0.0.1:${destination.port}/in/sub?x=1` });
  }, 180_000);

  it("--to <url> sends there as it is, and --json prints the attempt as POST /api/v1/events/{id}/replay answers it", async () => {
    const url = `http://127.0.0.1:${elsewhere.port}/exactly/here`;
    const result = await runCli(["replay", eventId, "--email", OWNER, "--to", url, "--json"], env);
    expect(result.code).toBe(0);
    const printed = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(Object.keys(printed).sort()).toEqual(["destination_id", "destination_url", "id", "latency_ms", "modified", "replayed_at", "response_status", "status"]);
    expect(printed).toMatchObject({ status: "delivered", response_status: 200, destination_url: url, modified: false });
    expect(elsewhere.received.at(-1)!.url).toBe("/exactly/here");
    expect(await attempt(printed.id as string)).toMatchObject({ environment: "custom", status: "delivered" });
  }, 180_000);

  it("--to staging sends to the endpoint's staging host; a destination's 500 is a recorded failure, exit 0", async () => {
    await db.query("update endpoints set staging_host = $2 where id = $1", [endpoint.id, `127.0.0.1:${elsewhere.port}`]);
    const staging = await runCli(["replay", eventId, "--email", OWNER, "--to", "staging", "--json"], env);
    expect(staging.code).toBe(0);
    expect(JSON.parse(staging.stdout)).toMatchObject({ status: "delivered", destination_url: `http://127.0.0.1:${elsewhere.port}/in/sub?x=1` });

    answerWith = 500;
    try {
      const failed = await runCli(["replay", eventId, "--email", OWNER, "--to", "original"], env);
      expect(failed.code).toBe(0);
      expect(failed.stdout).toMatch(/\n {2}outcome {2}failed: 500 in \d+ ms\n/);
      expect(failed.stdout).toContain("Response body\nbroken\n");
      const id = /^Replay (\S+) /.exec(failed.stdout)![1]!;
      expect(await attempt(id)).toMatchObject({ environment: "original", status: "failed", response_status: 500 });
    } finally {
      answerWith = 200;
    }
  }, 180_000);

  it("refuses what it cannot send in one line: a bad --to (exit 2), an unknown event, a refused address, a missing staging host (exit 1)", async () => {
    await db.query("update endpoints set staging_host = null where id = $1", [endpoint.id]);
    const before = destination.received.length + elsewhere.received.length;
    const [badTo, unknown, privateRefused, noStaging] = await Promise.all([
      runCli(["replay", eventId, "--email", OWNER, "--to", "production"], env),
      runCli(["replay", "0190f3c4-2222-7000-8000-000000000002", "--email", OWNER, "--to", "original"], env),
      runCli(["replay", eventId, "--email", OWNER, "--to", `http://127.0.0.1:${elsewhere.port}/`], { DATABASE_URL: db.url }),
      runCli(["replay", eventId, "--email", OWNER, "--to", "staging"], env),
    ]);
    expectOneLineError(badTo, 2, /^rehook replay: --to must be original, staging, local, custom, matched, failed or an http:\/\/ or https:\/\/ URL/);
    expectOneLineError(unknown, 1, /^rehook: There is no event with the id 0190f3c4-2222-7000-8000-000000000002/);
    expectOneLineError(privateRefused, 1, /^rehook: replay target refused/);
    expectOneLineError(noStaging, 1, /^rehook: set a staging hostname on the endpoint first/);
    expect(destination.received.length + elsewhere.received.length).toBe(before);
  }, 180_000);

  it("--to original on a push event with several matched destinations asks which, and sends nothing to the first destination", async () => {
    const { pushId } = await fannedOutPush();
    const before = destination.received.length;
    const original = await runCli(["replay", pushId, "--email", OWNER, "--to", "original"], env);
    expectOneLineError(original, 1, /^rehook: This event went to 2 destinations \(CI, Broken\): choose one with destination_id/);
    expect(destination.received.length).toBe(before);
  }, 180_000);

  it("--destination by name (or id) goes to that destination; --to failed to the failed deliveries only; --to matched to each", async () => {
    const { pushId, ci, broken } = await fannedOutPush();
    const byName = await runCli(["replay", pushId, "--email", OWNER, "--destination", "ci", "--json"], env);
    expect(byName.code, byName.stderr).toBe(0);
    expect(JSON.parse(byName.stdout)).toMatchObject({ destination_id: ci, destination_url: `http://127.0.0.1:${elsewhere.port}/ci/sub?x=1`, status: "delivered" });
    const failed = await runCli(["replay", pushId, "--email", OWNER, "--to", "failed", "--json"], env);
    expect(failed.code).toBe(0);
    expect(JSON.parse(failed.stdout)).toMatchObject({ attempts: [{ destination_id: broken, destination_url: `http://127.0.0.1:${elsewhere.port}/broken/sub?x=1` }], event_resolved: true });
    // Delivered there: that failure is resolved, and nothing is left to send to the failed ones.
    const nothingLeft = await runCli(["replay", pushId, "--email", OWNER, "--to", "failed"], env);
    expectOneLineError(nothingLeft, 1, /resolved already/);
    const byId = await runCli(["replay", pushId, "--email", OWNER, "--to", "original", "--destination", broken], env);
    expect(byId.stdout).toContain(`  to       http://127.0.0.1:${elsewhere.port}/broken/sub?x=1 (original)`);

    const matched = await runCli(["replay", pushId, "--email", OWNER, "--to", "matched"], env);
    expect(matched.code).toBe(0);
    expect(matched.stdout.match(/^Replay \S+ of event/gm)).toHaveLength(2);
    expect(matched.stdout).toContain(`/ci/sub?x=1 (original)`);
    expect(matched.stdout).toContain(`/broken/sub?x=1 (original)`);

    const unknown = await runCli(["replay", pushId, "--email", OWNER, "--destination", "Nowhere"], env);
    expectOneLineError(unknown, 1, /is none of this endpoint's destinations \(orders-destination, CI, Broken\)/);
    const mixed = await runCli(["replay", pushId, "--email", OWNER, "--to", "failed", "--destination", "CI"], env);
    expectOneLineError(mixed, 1, /destination_id goes with target "original" or "staging"/);
    const neither = await runCli(["replay", pushId, "--email", OWNER], env);
    expectOneLineError(neither, 2, /give --to/);
  }, 180_000);
});

/**
 * A second endpoint fanned out as in the issue: its first destination is the first endpoint's
 * server (it must never get the push), then CI and Broken; a GitHub push delivered to CI and
 * failed at Broken (its deliveries written as the completion writes them).
 */
async function fannedOutPush() {
  const created = await runCli(["endpoint", "create", "--email", OWNER, "--name", `fan ${Math.random().toString(36).slice(2, 8)}`, "--destination", `http://127.0.0.1:${destination.port}/first`], env);
  const fan = JSON.parse(created.stdout) as { id: string };
  await db.query("update destinations set name = 'orders-destination' where endpoint_id = $1", [fan.id]);
  const [ci, broken] = [crypto.randomUUID(), crypto.randomUUID()];
  await db.query(
    `insert into destinations (id, endpoint_id, position, name, url, created_at, updated_at)
     values ($1, $3, 1, 'CI', $4, now(), now()), ($2, $3, 2, 'Broken', $5, now(), now())`,
    [ci, broken, fan.id, `http://127.0.0.1:${elsewhere.port}/ci`, `http://127.0.0.1:${elsewhere.port}/broken`],
  );
  const pushId = `0190f3c4-3333-7000-8000-${Math.floor(Math.random() * 1e12).toString().padStart(12, "0")}`;
  await db.query(
    `insert into events (id, endpoint_id, received_at, method, path, query, headers, body, content_type, size_bytes, source, event_type, status)
     values ($1, $2, now(), 'POST', '/sub', 'x=1', '[["content-type","application/json"],["x-github-event","push"]]'::jsonb,
             convert_to('{"ref":"main"}', 'UTF8'), 'application/json', 14, 'github', 'push', 'failed')`,
    [pushId, fan.id],
  );
  await db.query(
    `insert into deliveries (event_id, destination_id, endpoint_id, status, attempts, completed_at) values ($1, $2, $4, 'delivered', 1, now()), ($1, $3, $4, 'failed', 1, now())`,
    [pushId, ci, broken, fan.id],
  );
  return { pushId, ci, broken };
}
