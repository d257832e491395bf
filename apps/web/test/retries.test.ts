import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { eventCountMismatches } from "@rehook/vitest-config/event-counts";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { DashboardClient } from "./dashboard-client.js";
import { startTestServer, type TestServer } from "./test-server.js";

/** A destination that answers each request with the next scripted answer, then with 200. */
class ScriptedDestination {
  script: Array<(res: ServerResponse) => void> = [];
  sink!: Sink;

  async start(): Promise<this> {
    this.sink = await startSink((_req, res) => (this.script.shift() ?? ((r: ServerResponse) => r.end("ok")))(res));
    return this;
  }

  url(path = "/in"): string {
    return `http://127.0.0.1:${this.sink.port}${path}`;
  }
}

const answer = (status: number, body: string, headers: Record<string, string> = {}) => (res: ServerResponse) => {
  res.writeHead(status, { "x-attempt-answer": String(status), ...headers });
  res.end(body);
};

let t: TestServer;
let user: DashboardClient;
let destination: ScriptedDestination;

interface EventRow {
  status: string;
  attempts: number;
  next_attempt_at: Date | null;
  completed_at: Date | null;
}

const eventRow = async (id: string) => (await t.db.query<EventRow>("select status, attempts, next_attempt_at, completed_at from events where id = $1", [id]))[0]!;
const counts = async (endpointId: string) =>
  (await t.db.query<{ delivered_count: string; failed_count: string }>("select delivered_count, failed_count from endpoints where id = $1", [endpointId]))[0]!;
const attemptRows = async (id: string) =>
  t.db.query<{ attempt: number; outcome: string; response_status: number | null; started_at: Date }>(
    "select attempt, outcome, response_status, started_at from delivery_attempts where event_id = $1 order by attempt",
    [id],
  );

async function capture(slug: string, body: string): Promise<string> {
  const response = await fetch(`${t.rehook.url}/api/webhook/${slug}`, { method: "POST", headers: { "content-type": "application/json" }, body });
  expect(response.status).toBe(200);
  return ((await response.json()) as { eventId: string }).eventId;
}

async function endpoint(name: string, input: Record<string, unknown>): Promise<{ id: string; slug: string }> {
  const created = await user.mutate("endpoints.create", { name, destinationUrl: destination.url(), ...input });
  expect(created.status).toBe(200);
  return created.body.result!.data.json as { id: string; slug: string };
}

const data = <T>(envelope: { body: { result?: { data: { json: unknown } } } }) => envelope.body.result!.data.json as T;
const fastPolicy = (maxAttempts: number) => ({ maxAttempts, initialDelayMs: 100, maxDelayMs: 200 });

beforeAll(async () => {
  destination = await new ScriptedDestination().start();
  t = await startTestServer({ ALLOW_PRIVATE_DESTINATIONS: "true", FORWARD_TIMEOUT_MS: "1000" });
  user = new DashboardClient(t.rehook.url);
  expect((await user.postForm("/signup", { email: "retries@example.com", password: "a long enough password" })).status).toBe(303);
});
afterAll(async () => {
  await t.close();
  await destination.sink.close();
});

describe("automatic retries", () => {
  it("without a policy makes exactly one attempt: the event fails and is counted once", async () => {
    const once = await endpoint("no retries", {});
    destination.script.push(answer(500, "no"));
    const id = await capture(once.slug, '{"n":1}');
    await waitFor(async () => (await eventRow(id)).status === "failed", "the event to fail");
    expect(await eventRow(id)).toMatchObject({ attempts: 1, next_attempt_at: null });
    expect((await attemptRows(id)).map((a) => [a.attempt, a.outcome, a.response_status])).toEqual([[1, "failed", 500]]);
    expect(await counts(once.id)).toEqual({ delivered_count: "0", failed_count: "1" });
  });

  it("keeps the event pending with next_attempt_at between attempts, records each, and counts only the final outcome", async () => {
    const flaky = await endpoint("flaky", { retryPolicy: fastPolicy(4) });
    const got = data<{ retryPolicy: unknown; pauseAfterFailures: unknown; forwardingPaused: boolean }>(await user.query("endpoints.get", { id: flaky.id }));
    expect(got).toMatchObject({ retryPolicy: fastPolicy(4), pauseAfterFailures: null, forwardingPaused: false, pausedReason: null, pausedAt: null });
    // The second answer is held until the test has seen the event pending with a retry scheduled.
    let release: (() => void) | undefined;
    destination.script.push(answer(500, "first"), (res) => (release = () => answer(502, "second")(res)));
    const id = await capture(flaky.slug, '{"n":2}');
    await waitFor(() => release !== undefined, "the second attempt to reach the destination");
    const between = await eventRow(id);
    expect(between).toMatchObject({ status: "pending", attempts: 2, completed_at: null });
    expect(await counts(flaky.id)).toEqual({ delivered_count: "0", failed_count: "0" });
    release!();
    await waitFor(async () => (await eventRow(id)).status === "delivered", "the third attempt to deliver");
    const attempts = await attemptRows(id);
    expect(attempts.map((a) => [a.attempt, a.outcome, a.response_status])).toEqual([
      [1, "failed", 500],
      [2, "failed", 502],
      [3, "delivered", 200],
    ]);
    // The waits are the backoff's (100 ms, then 200 ms, ±20 %), not the recovery interval alone.
    expect(attempts[1]!.started_at.getTime() - attempts[0]!.started_at.getTime()).toBeGreaterThanOrEqual(80);
    expect(await eventRow(id)).toMatchObject({ status: "delivered", next_attempt_at: null });
    expect(await counts(flaky.id)).toEqual({ delivered_count: "1", failed_count: "0" });

    const event = data<{ attempts: Array<Record<string, unknown>>; nextAttemptAt: unknown }>(await user.query("events.get", { id }));
    expect(event.nextAttemptAt).toBeNull();
    expect(event.attempts.map((a) => [a.attempt, a.outcome, a.responseStatus, a.error])).toEqual([
      [1, "failed", 500, "destination answered 500"],
      [2, "failed", 502, "destination answered 502"],
      [3, "delivered", 200, null],
    ]);
    expect(Object.keys(event.attempts[0]!).sort()).toEqual(["attempt", "error", "latencyMs", "outcome", "responseStatus", "startedAt"]);
    const second = data<{ responseHeaders: Array<[string, string]>; payload: { kind: string; text: string }; bodyTruncated: boolean }>(
      await user.query("events.attempt", { eventId: id, attempt: 2 }),
    );
    expect(second.responseHeaders).toContainEqual(["x-attempt-answer", "502"]);
    expect(second.payload).toMatchObject({ kind: "text", text: "second" });
    expect(second.bodyTruncated).toBe(false);
    expect((await user.query("events.attempt", { eventId: id, attempt: 9 })).body.error?.json.data.code).toBe("NOT_FOUND");
  });

  it("fails after the last attempt, and honours Retry-After on 503 over the backoff", async () => {
    const limited = await endpoint("retry after", { retryPolicy: fastPolicy(2) });
    destination.script.push(answer(503, "busy", { "retry-after": "2" }), answer(500, "still no"));
    const id = await capture(limited.slug, '{"n":3}');
    await waitFor(async () => (await attemptRows(id)).length === 1, "the first attempt");
    const scheduled = await eventRow(id);
    const [first] = await attemptRows(id);
    expect(scheduled.status).toBe("pending");
    expect(scheduled.next_attempt_at!.getTime() - first!.started_at.getTime()).toBeGreaterThanOrEqual(1_900);
    const shown = data<{ nextAttemptAt: string }>(await user.query("events.get", { id }));
    expect(new Date(shown.nextAttemptAt).getTime()).toBe(scheduled.next_attempt_at!.getTime());
    await waitFor(async () => (await eventRow(id)).status === "failed", "the last attempt to fail", 10_000);
    const attempts = await attemptRows(id);
    expect(attempts[1]!.started_at.getTime() - attempts[0]!.started_at.getTime()).toBeGreaterThanOrEqual(1_900);
    expect(await counts(limited.id)).toEqual({ delivered_count: "0", failed_count: "1" });
  });

  it("retry now gives a failed event a new attempt: out of the failed count, counted again by its new outcome", async () => {
    const once = await endpoint("retry now", {});
    destination.script.push(answer(500, "no"));
    const id = await capture(once.slug, '{"n":4}');
    await waitFor(async () => (await eventRow(id)).status === "failed", "the event to fail");
    const retried = data<{ status: string; forwardingPaused: boolean; nextAttemptAt: string }>(await user.mutate("events.retry", { id }));
    expect(retried).toMatchObject({ status: "pending", forwardingPaused: false });
    await waitFor(async () => (await eventRow(id)).status === "delivered", "the new attempt to deliver");
    expect((await attemptRows(id)).map((a) => [a.attempt, a.outcome])).toEqual([
      [1, "failed"],
      [2, "delivered"],
    ]);
    expect(await counts(once.id)).toEqual({ delivered_count: "1", failed_count: "0" });
    const again = await user.mutate("events.retry", { id });
    expect(again.body.error?.json.data.code).toBe("CONFLICT");
    expect(again.body.error?.json.message).toMatch(/delivered/);

    destination.script.push(answer(500, "a"), answer(500, "b"));
    const failed = [await capture(once.slug, '{"n":5}'), await capture(once.slug, '{"n":6}')];
    await waitFor(async () => (await Promise.all(failed.map(eventRow))).every((row) => row.status === "failed"), "both to fail");
    expect(await counts(once.id)).toEqual({ delivered_count: "1", failed_count: "2" });
    expect(data<{ count: number }>(await user.mutate("endpoints.retryFailed", { id: once.id }))).toMatchObject({ count: 2, forwardingPaused: false });
    await waitFor(async () => (await Promise.all(failed.map(eventRow))).every((row) => row.status === "delivered"), "both to be delivered");
    expect(await counts(once.id)).toEqual({ delivered_count: "3", failed_count: "0" });
  });

  it("keeps a retry due soon in memory, leased past its due time, and retry now takes it over: one send per attempt", async () => {
    const held = await endpoint("held retry", { retryPolicy: { maxAttempts: 3, initialDelayMs: 1_500, maxDelayMs: 1_500 } });
    destination.script.push(answer(500, "first"));
    const id = await capture(held.slug, '{"n":7}');
    await waitFor(() => t.rehook.delivery.heldRetries === 1, "the failed event to wait in memory for its retry");
    const row = (await t.db.query<{ status: string; lease_expires_at: Date; next_attempt_at: Date }>("select status, lease_expires_at, next_attempt_at from events where id = $1", [id]))[0]!;
    expect(row.status).toBe("pending");
    // Leased to the instance beyond the retry's due time: no claim can take it meanwhile.
    expect(row.lease_expires_at.getTime()).toBeGreaterThan(row.next_attempt_at.getTime());

    // Retry now on the kept event is not "in flight": it becomes due at once and is sent as attempt 2.
    const retried = data<{ status: string }>(await user.mutate("events.retry", { id }));
    expect(retried.status).toBe("pending");
    await waitFor(async () => (await eventRow(id)).status === "delivered", "the retry to deliver");
    // The kept copy's own turn comes and finds the event changed: nothing more is sent.
    await waitFor(() => t.rehook.delivery.heldRetries === 0, "the kept retry's turn");
    await waitFor(() => t.rehook.delivery.load(held.id).running === 0, "nothing in flight");
    expect((await attemptRows(id)).map((a) => [a.attempt, a.outcome])).toEqual([
      [1, "failed"],
      [2, "delivered"],
    ]);
    expect(await eventRow(id)).toMatchObject({ status: "delivered", attempts: 2 });
  });

  it("a stopping instance hands its kept retries back with their attempt counted; another sends the next one", async () => {
    const other = await startTestServer({ ALLOW_PRIVATE_DESTINATIONS: "true", FORWARD_TIMEOUT_MS: "1000" }, t.db);
    const handed = await endpoint("handed back", { retryPolicy: { maxAttempts: 3, initialDelayMs: 1_500, maxDelayMs: 1_500 } });
    destination.script.push(answer(500, "first"));
    const response = await fetch(`${other.rehook.url}/api/webhook/${handed.slug}`, { method: "POST", body: '{"n":8}' });
    const { eventId: id } = (await response.json()) as { eventId: string };
    await waitFor(() => other.rehook.delivery.heldRetries === 1, "the other instance to keep the retry");
    await other.close();
    const row = (await t.db.query<{ status: string; attempts: number; lease_expires_at: Date | null }>("select status, attempts, lease_expires_at from events where id = $1", [id]))[0]!;
    expect(row).toEqual({ status: "pending", attempts: 1, lease_expires_at: null });
    await waitFor(async () => (await eventRow(id)).status === "delivered", "the instance still running to send the retry");
    expect((await attemptRows(id)).map((a) => [a.attempt, a.outcome])).toEqual([
      [1, "failed"],
      [2, "delivered"],
    ]);
  });

  it("keeps another user's events and endpoints out of reach (NOT_FOUND)", async () => {
    const mine = await endpoint("private", {});
    const id = await capture(mine.slug, '{"n":7}');
    const other = new DashboardClient(t.rehook.url);
    await other.postForm("/signup", { email: "other-retries@example.com", password: "a long enough password" });
    for (const call of [
      other.mutate("events.retry", { id }),
      other.query("events.attempt", { eventId: id, attempt: 1 }),
      other.mutate("endpoints.retryFailed", { id: mine.id }),
      other.mutate("endpoints.resume", { id: mine.id }),
      other.mutate("endpoints.update", { id: mine.id, retryPolicy: null }),
    ]) {
      expect((await call).body.error?.json.data.code).toBe("NOT_FOUND");
    }
  });

  it("kept every endpoint's per-status counts equal to its events through the deliveries, retries and retries now above", async () => {
    expect(await eventCountMismatches(t.db)).toEqual([]);
  });
});
