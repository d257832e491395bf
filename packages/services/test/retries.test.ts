import { afterAll, beforeAll, describe, expect } from "vitest";
import { DeliveryDispatcher } from "@rehook/delivery";
import { eventCountMismatches } from "@rehook/vitest-config/event-counts";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import {
  createEndpoint,
  getEndpoint,
  getEvent,
  getEventAttempt,
  resumeEndpoint,
  retryEvent,
  retryFailedEvents,
  saveNotificationSettings,
  updateEndpoint,
  type Services,
} from "@rehook/services";
import { answer, capture, expectRefused, MISSING_ID, ScriptedDestination, test } from "./support.js";

// Forwarding's retries on the running service graph (delivery workers, dispatcher, job
// runner): automatic retries by the endpoint's policy, "retry now" of one event or all
// failed ones, and the circuit breaker that pauses an endpoint until it is resumed.

interface EventRow {
  status: string;
  attempts: number;
  next_attempt_at: Date | null;
  completed_at: Date | null;
}

let destination: ScriptedDestination;
beforeAll(async () => {
  destination = await new ScriptedDestination().start();
});
afterAll(() => destination.close());

type Query = <Row extends Record<string, unknown>>(sql: string, params?: unknown[]) => Promise<Row[]>;
/** The endpoint's first destination (its destination_url): the dispatcher's unit of fairness. */
const firstDestinationId = async (db: { query: Query }, endpointId: string) =>
  (await db.query<{ id: string }>("select id from destinations where endpoint_id = $1 order by position limit 1", [endpointId]))[0]!.id;
const eventRow = async (db: { query: Query }, id: string) =>
  (await db.query<EventRow & Record<string, unknown>>("select status, (select coalesce(sum(d.attempts), 0)::int from deliveries d where d.event_id = e.id) as attempts, next_attempt_at, completed_at from events e where id = $1", [id]))[0]!;
const counts = async (db: { query: Query }, endpointId: string) =>
  (await db.query<{ delivered_count: string; failed_count: string }>("select delivered_count, failed_count from endpoints where id = $1", [endpointId]))[0]!;
const attemptRows = (db: { query: Query }, id: string) =>
  db.query<{ attempt: number; outcome: string; response_status: number | null; started_at: Date }>(
    "select attempt, outcome, response_status, started_at from delivery_attempts where event_id = $1 order by attempt",
    [id],
  );

const fastPolicy = (maxAttempts: number) => ({ maxAttempts, initialDelayMs: 100, maxDelayMs: 200 });

/** The graph's dispatcher (the forwarder captures hand their events to). */
function dispatcherOf(services: Services): DeliveryDispatcher {
  if (!(services.forwarder instanceof DeliveryDispatcher)) throw new Error("the graph's forwarder is not the delivery dispatcher");
  return services.forwarder;
}

describe("automatic retries", () => {
  test("without a policy makes exactly one attempt: the event fails and is counted once", async ({ services, user, database }) => {
    const once = await createEndpoint(services, { teamId: user.teamId, name: "no retries", destinationUrl: destination.url() });
    destination.script.push(answer(500, "no"));
    const id = await capture(services, once.slug, '{"n":1}');
    await waitFor(async () => (await eventRow(database, id)).status === "failed", "the event to fail");
    expect(await eventRow(database, id)).toMatchObject({ attempts: 1, next_attempt_at: null });
    expect((await attemptRows(database, id)).map((a) => [a.attempt, a.outcome, a.response_status])).toEqual([[1, "failed", 500]]);
    expect(await counts(database, once.id)).toEqual({ delivered_count: "0", failed_count: "1" });
  });

  test("keeps the event pending with next_attempt_at between attempts, records each, and counts only the final outcome", async ({ services, user, database }) => {
    const flaky = await createEndpoint(services, { teamId: user.teamId, name: "flaky", destinationUrl: destination.url(), retryPolicy: fastPolicy(4) });
    expect(await getEndpoint(services, { teamId: user.teamId, endpoint: { id: flaky.id } })).toMatchObject({
      retryPolicy: { maxAttempts: 4, initialDelayMs: 100, maxDelayMs: 200 },
      pauseAfterFailures: null,
      forwardingPaused: false,
      pausedReason: null,
      pausedAt: null,
    });
    // The second answer is held until the test has seen the event pending with a retry scheduled.
    let release: (() => void) | undefined;
    destination.script.push(answer(500, "first"), (res) => (release = () => answer(502, "second")(res)));
    const id = await capture(services, flaky.slug, '{"n":2}');
    await waitFor(() => release !== undefined, "the second attempt to reach the destination");
    expect(await eventRow(database, id)).toMatchObject({ status: "pending", attempts: 2, completed_at: null });
    expect(await counts(database, flaky.id)).toEqual({ delivered_count: "0", failed_count: "0" });
    release!();
    await waitFor(async () => (await eventRow(database, id)).status === "delivered", "the third attempt to deliver");
    const attempts = await attemptRows(database, id);
    expect(attempts.map((a) => [a.attempt, a.outcome, a.response_status])).toEqual([
      [1, "failed", 500],
      [2, "failed", 502],
      [3, "delivered", 200],
    ]);
    // The waits are the backoff's (100 ms, then 200 ms, ±20 %), not the recovery interval alone.
    expect(attempts[1]!.started_at.getTime() - attempts[0]!.started_at.getTime()).toBeGreaterThanOrEqual(80);
    expect(await eventRow(database, id)).toMatchObject({ status: "delivered", next_attempt_at: null });
    expect(await counts(database, flaky.id)).toEqual({ delivered_count: "1", failed_count: "0" });

    const event = await getEvent(services, { teamId: user.teamId, eventId: id });
    expect(event.nextAttemptAt).toBeNull();
    expect(event.attempts.map((a) => [a.attempt, a.outcome, a.responseStatus, a.error])).toEqual([
      [1, "failed", 500, "destination answered 500"],
      [2, "failed", 502, "destination answered 502"],
      [3, "delivered", 200, null],
    ]);
    expect(Object.keys(event.attempts[0]!).sort()).toEqual(["attempt", "destinationId", "destinationName", "destinationUrl", "error", "latencyMs", "outcome", "responseStatus", "startedAt"]);
    const second = await getEventAttempt(services, { teamId: user.teamId, eventId: id, attempt: 2 });
    expect(second.responseHeaders).toContainEqual(["x-attempt-answer", "502"]);
    expect(Buffer.from(second.responseBody!).toString()).toBe("second");
    expect(second.bodyTruncated).toBe(false);
    await expectRefused(getEventAttempt(services, { teamId: user.teamId, eventId: id, attempt: 9 }), "not_found", `Event ${id} has no attempt 9. Open the event to see its attempts.`);
  });

  test("fails after the last attempt, and honours Retry-After on 503 over the backoff", async ({ services, user, database }) => {
    const limited = await createEndpoint(services, { teamId: user.teamId, name: "retry after", destinationUrl: destination.url(), retryPolicy: fastPolicy(2) });
    destination.script.push(answer(503, "busy", { "retry-after": "2" }), answer(500, "still no"));
    const id = await capture(services, limited.slug, '{"n":3}');
    await waitFor(async () => (await attemptRows(database, id)).length === 1, "the first attempt");
    const scheduled = await eventRow(database, id);
    const [first] = await attemptRows(database, id);
    expect(scheduled.status).toBe("pending");
    expect(scheduled.next_attempt_at!.getTime() - first!.started_at.getTime()).toBeGreaterThanOrEqual(1_900);
    const shown = await getEvent(services, { teamId: user.teamId, eventId: id });
    expect(shown.nextAttemptAt!.getTime()).toBe(scheduled.next_attempt_at!.getTime());
    await waitFor(async () => (await eventRow(database, id)).status === "failed", "the last attempt to fail", 10_000);
    const attempts = await attemptRows(database, id);
    expect(attempts[1]!.started_at.getTime() - attempts[0]!.started_at.getTime()).toBeGreaterThanOrEqual(1_900);
    expect(await counts(database, limited.id)).toEqual({ delivered_count: "0", failed_count: "1" });
  });
});

describe("retry now", () => {
  test("gives a failed event a new attempt: out of the failed count, counted again by its new outcome", async ({ services, user, database }) => {
    const once = await createEndpoint(services, { teamId: user.teamId, name: "retry now", destinationUrl: destination.url() });
    destination.script.push(answer(500, "no"));
    const id = await capture(services, once.slug, '{"n":4}');
    await waitFor(async () => (await eventRow(database, id)).status === "failed", "the event to fail");
    const retried = await retryEvent(services, { teamId: user.teamId, eventId: id });
    expect(retried).toEqual({ id, status: "pending", nextAttemptAt: expect.any(Date), forwardingPaused: false, message: "queued: the next attempt starts within a few seconds" });
    await waitFor(async () => (await eventRow(database, id)).status === "delivered", "the new attempt to deliver");
    expect((await attemptRows(database, id)).map((a) => [a.attempt, a.outcome])).toEqual([
      [1, "failed"],
      [2, "delivered"],
    ]);
    expect(await counts(database, once.id)).toEqual({ delivered_count: "1", failed_count: "0" });
    await expectRefused(retryEvent(services, { teamId: user.teamId, eventId: id }), "conflict", `Event ${id} is delivered, and only pending and failed events can be retried. Replay it instead.`);

    destination.script.push(answer(500, "a"), answer(500, "b"));
    const failed = [await capture(services, once.slug, '{"n":5}'), await capture(services, once.slug, '{"n":6}')];
    await waitFor(async () => (await Promise.all(failed.map((event) => eventRow(database, event)))).every((row) => row.status === "failed"), "both to fail");
    expect(await counts(database, once.id)).toEqual({ delivered_count: "1", failed_count: "2" });
    expect(await retryFailedEvents(services, { teamId: user.teamId, endpointId: once.id })).toEqual({ count: 2, forwardingPaused: false, message: "2 failed events queued" });
    await waitFor(async () => (await Promise.all(failed.map((event) => eventRow(database, event)))).every((row) => row.status === "delivered"), "both to be delivered");
    expect(await counts(database, once.id)).toEqual({ delivered_count: "3", failed_count: "0" });
    expect(await retryFailedEvents(services, { teamId: user.teamId, endpointId: once.id })).toEqual({ count: 0, forwardingPaused: false, message: "0 failed events queued" });
  });

  test("refuses an event of a capture-only endpoint, saying to add a destination or replay", async ({ services, user }) => {
    const inbox = await createEndpoint(services, { teamId: user.teamId, name: "inbox" });
    const id = await capture(services, inbox.slug, "{}");
    await expectRefused(
      retryEvent(services, { teamId: user.teamId, eventId: id }),
      "unprocessable",
      `Event ${id} has no destination to retry: its endpoint only captures. Add a destination URL to the endpoint, or replay the event to a URL.`,
    );
  });

  test("keeps a retry due soon in memory, leased past its due time, and retry now takes it over: one send per attempt", async ({ services, user, database }) => {
    const dispatcher = dispatcherOf(services);
    const held = await createEndpoint(services, {
      teamId: user.teamId,
      name: "held retry",
      destinationUrl: destination.url(),
      retryPolicy: { maxAttempts: 3, initialDelayMs: 1_500, maxDelayMs: 1_500 },
    });
    destination.script.push(answer(500, "first"));
    const id = await capture(services, held.slug, '{"n":7}');
    await waitFor(() => dispatcher.heldRetries === 1, "the failed event to wait in memory for its retry");
    // The retry is kept before its attempt's result is stored: wait for the row too.
    await waitFor(async () => (await eventRow(database, id)).next_attempt_at !== null, "the first attempt's result to be stored");
    const row = (
      await database.query<{ status: string; lease_expires_at: Date; next_attempt_at: Date }>("select status, lease_expires_at, next_attempt_at from deliveries where event_id = $1", [id])
    )[0]!;
    expect(row.status).toBe("pending");
    // Leased to the instance beyond the retry's due time: no claim can take it meanwhile.
    expect(row.lease_expires_at.getTime()).toBeGreaterThan(row.next_attempt_at.getTime());

    // Retry now on the kept event is not "in flight": it becomes due at once and is sent as attempt 2.
    expect((await retryEvent(services, { teamId: user.teamId, eventId: id })).status).toBe("pending");
    await waitFor(async () => (await eventRow(database, id)).status === "delivered", "the retry to deliver");
    // The kept copy's own turn comes and finds the event changed: nothing more is sent.
    await waitFor(() => dispatcher.heldRetries === 0, "the kept retry's turn");
    await waitFor(async () => dispatcher.load(await firstDestinationId(database, held.id)).running === 0, "nothing in flight");
    expect((await attemptRows(database, id)).map((a) => [a.attempt, a.outcome])).toEqual([
      [1, "failed"],
      [2, "delivered"],
    ]);
    expect(await eventRow(database, id)).toMatchObject({ status: "delivered", attempts: 2 });
  });

  test("keeps another team's events and endpoints out of reach (not_found), and missing or malformed ids too", async ({ services, user, other }) => {
    const mine = await createEndpoint(services, { teamId: user.teamId, name: "private", destinationUrl: destination.url() });
    const id = await capture(services, mine.slug, '{"n":8}');
    const noEvent = (eventId: string) => `There is no event with the id ${eventId}. It may have been deleted already.`;
    const noEndpoint = (endpointId: string) => `There is no endpoint with the id ${endpointId}. It may have been deleted; list your endpoints to find the right id.`;
    await expectRefused(retryEvent(services, { teamId: other.teamId, eventId: id }), "not_found", noEvent(id));
    await expectRefused(getEventAttempt(services, { teamId: other.teamId, eventId: id, attempt: 1 }), "not_found");
    await expectRefused(retryFailedEvents(services, { teamId: other.teamId, endpointId: mine.id }), "not_found", noEndpoint(mine.id));
    await expectRefused(resumeEndpoint(services, { teamId: other.teamId, endpointId: mine.id }), "not_found", noEndpoint(mine.id));
    await expectRefused(updateEndpoint(services, { teamId: other.teamId, endpoint: { id: mine.id }, changes: { retryPolicy: null } }), "not_found", noEndpoint(mine.id));
    await expectRefused(retryEvent(services, { teamId: user.teamId, eventId: MISSING_ID }), "not_found", noEvent(MISSING_ID));
    await expectRefused(retryEvent(services, { teamId: user.teamId, eventId: "nope" }), "not_found", noEvent("nope"));
    await expectRefused(retryFailedEvents(services, { teamId: user.teamId, endpointId: "nope" }), "not_found", noEndpoint("nope"));
    await expectRefused(resumeEndpoint(services, { teamId: user.teamId, endpointId: MISSING_ID }), "not_found", noEndpoint(MISSING_ID));
  });

  // The circuit breaker's stories below make an event pending by hand, outside the counts: checked before them.
  test("kept every endpoint's per-status counts equal to its events through the deliveries, retries and retries now above", async ({ database }) => {
    expect(await eventCountMismatches(database)).toEqual([]);
  });
});

interface Post {
  text: string;
  blocks: Array<{ type: string; text?: { text: string } }>;
}

describe("circuit breaker", () => {
  let target: Sink;
  let provider: Sink;
  let healthy = false;
  const posts: Post[] = [];

  beforeAll(async () => {
    target = await startSink((_req, res) => {
      res.statusCode = healthy ? 200 : 500;
      res.end(healthy ? "ok" : "down");
    });
    provider = await startSink((_req, res, body) => {
      posts.push(JSON.parse(body.toString()) as Post);
      res.end("ok");
    });
  });
  afterAll(async () => {
    await target.close();
    await provider.close();
  });

  const statuses = async (db: { query: Query }, ids: string[]) =>
    (await db.query<{ id: string; status: string; attempts: number }>("select id, status, (select coalesce(sum(d.attempts), 0)::int from deliveries d where d.event_id = e.id) as attempts from events e where id = any($1::uuid[]) order by id", [ids])).map((row) => [row.status, row.attempts]);

  test("pauses after N consecutive failed attempts, holds new and scheduled events, notifies once, and drains in order on resume", async ({ services, user, database }) => {
    // Failed events notify: a scheduled retry must not. The chat hook is on loopback, so its base is the provider's.
    const chat = { ...services, chatHooksBase: `http://127.0.0.1:${provider.port}/services` };
    await saveNotificationSettings(chat, { teamId: user.teamId, enabled: true, webhookUrl: `http://127.0.0.1:${provider.port}/services/T/B/X`, triggers: ["failed"] });
    const endpoint = await createEndpoint(services, {
      teamId: user.teamId,
      name: "breaker",
      destinationUrl: `http://127.0.0.1:${target.port}/in`,
      // A failed attempt's retry is an hour away: only resuming makes it due now.
      retryPolicy: { maxAttempts: 3, initialDelayMs: 3_600_000, maxDelayMs: 3_600_000 },
      pauseAfterFailures: 2,
    });
    expect(endpoint.pauseAfterFailures).toBe(2);
    const read = () => getEndpoint(services, { teamId: user.teamId, endpoint: { id: endpoint.id } });

    const first = [await capture(services, endpoint.slug, "1"), await capture(services, endpoint.slug, "2")];
    await waitFor(async () => (await read()).forwardingPaused, "the breaker to trip");
    const paused = await read();
    expect(paused.pausedReason).toBe("2 consecutive failed attempts (last: destination answered 500)");
    expect(new Date(paused.pausedAt!).getTime()).not.toBeNaN();
    expect(await statuses(database, first)).toEqual([
      ["pending", 1],
      ["pending", 1],
    ]);
    // The owner hears about the pause once, with a link to the endpoint (and nothing about the retries).
    await waitFor(() => posts.length === 1, "the Forwarding Paused message");
    expect(posts[0]!.blocks[0]!.text!.text).toBe("Forwarding Paused");
    expect(JSON.stringify(posts[0])).toContain(`/endpoints/${endpoint.id}`);
    expect(posts[0]!.text).toContain("2 consecutive failed attempts");

    // New events wait unsent: neither the fast path nor a recovery claim takes them.
    const later = await capture(services, endpoint.slug, "3");
    const other = await createEndpoint(services, { teamId: user.teamId, name: "other", destinationUrl: `http://127.0.0.1:${target.port}/other` });
    healthy = true;
    const otherEvent = await capture(services, other.slug, "other");
    // Made unleased, so only a recovery claim can send it: once it is delivered, a claim ran and skipped the paused endpoint.
    await waitFor(async () => (await statuses(database, [otherEvent]))[0]![0] === "delivered", "the other endpoint's event");
    await database.query("update deliveries set status = 'pending', lease_expires_at = null, completed_at = null where event_id = $1", [otherEvent]);
    await database.query("update events set status = 'pending' where id = $1", [otherEvent]);
    await waitFor(async () => (await statuses(database, [otherEvent]))[0]![0] === "delivered", "a recovery claim");
    expect(await statuses(database, [later])).toEqual([["pending", 0]]);
    expect(target.received.filter((r) => r.url === "/in")).toHaveLength(2);

    // Retry now is queued but says it waits for the resume.
    const retried = await retryEvent(services, { teamId: user.teamId, eventId: later });
    expect(retried).toMatchObject({ forwardingPaused: true, message: "queued, but forwarding to this endpoint is paused: it is sent once the endpoint is resumed" });
    expect(await retryFailedEvents(services, { teamId: user.teamId, endpointId: endpoint.id })).toEqual({
      count: 0,
      forwardingPaused: true,
      message: "0 failed events queued, but forwarding to this endpoint is paused: it is sent once the endpoint is resumed",
    });

    expect(await resumeEndpoint(services, { teamId: user.teamId, endpointId: endpoint.id })).toEqual({ rescheduled: expect.any(Number) });
    // Half-open: the count is kept until a probe (the oldest waiting delivery) gets through.
    expect(await read()).toMatchObject({ forwardingPaused: false, pausedReason: null, pausedAt: null, consecutiveFailures: 2 });
    const all = [...first, later];
    await waitFor(async () => (await statuses(database, all)).every(([status]) => status === "delivered"), "the backlog to drain");
    expect(await read()).toMatchObject({ forwardingPaused: false, consecutiveFailures: 0 });
    expect(target.received.filter((r) => r.url === "/in").map((r) => r.body.toString())).toEqual(["1", "2", "1", "2", "3"]);
    expect(await counts(database, endpoint.id)).toEqual({ delivered_count: "3", failed_count: "0" });
    expect(posts).toHaveLength(1);
    expect(Number((await database.query<{ n: string }>("select count(*) as n from notification_outbox"))[0]!.n)).toBe(0);
  });

  test("a delivered attempt resets the count, and a threshold of null never pauses", async ({ services, user, database }) => {
    healthy = false;
    const created = await createEndpoint(services, { teamId: user.teamId, name: "reset", destinationUrl: `http://127.0.0.1:${target.port}/reset`, pauseAfterFailures: 2 });
    const read = () => getEndpoint(services, { teamId: user.teamId, endpoint: { id: created.id } });
    const failedOnce = await capture(services, created.slug, "a");
    await waitFor(async () => (await statuses(database, [failedOnce]))[0]![0] === "failed", "one failure");
    healthy = true;
    const ok = await capture(services, created.slug, "b");
    await waitFor(async () => (await statuses(database, [ok]))[0]![0] === "delivered", "a delivery");
    healthy = false;
    const failedAgain = await capture(services, created.slug, "c");
    await waitFor(async () => (await statuses(database, [failedAgain]))[0]![0] === "failed", "another failure");
    expect(await read()).toMatchObject({ forwardingPaused: false, consecutiveFailures: 1 });

    const off = await updateEndpoint(services, { teamId: user.teamId, endpoint: { id: created.id }, changes: { pauseAfterFailures: null } });
    expect(off.pauseAfterFailures).toBeNull();
    const more = [await capture(services, created.slug, "d"), await capture(services, created.slug, "e")];
    await waitFor(async () => (await statuses(database, more)).every(([status]) => status === "failed"), "more failures");
    expect(await read()).toMatchObject({ forwardingPaused: false, consecutiveFailures: 3 });
  });

  test("resuming an endpoint that is not paused changes nothing: only a delivered attempt restarts its count", async ({ services, user, database }) => {
    healthy = false;
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "unpaused", destinationUrl: `http://127.0.0.1:${target.port}/unpaused`, pauseAfterFailures: 5 });
    const failed = await capture(services, endpoint.slug, "x");
    await waitFor(async () => (await statuses(database, [failed]))[0]![0] === "failed", "a failure");
    expect((await getEndpoint(services, { teamId: user.teamId, endpoint: { id: endpoint.id } })).consecutiveFailures).toBe(1);
    expect(await resumeEndpoint(services, { teamId: user.teamId, endpointId: endpoint.id })).toEqual({ rescheduled: 0 });
    expect(await getEndpoint(services, { teamId: user.teamId, endpoint: { id: endpoint.id } })).toMatchObject({ consecutiveFailures: 1, forwardingPaused: false });
    // The failed event stays failed: resuming is not retrying.
    expect(await statuses(database, [failed])).toEqual([["failed", 1]]);
    healthy = true;
    const delivered = await capture(services, endpoint.slug, "y");
    await waitFor(async () => (await statuses(database, [delivered]))[0]![0] === "delivered", "a delivery");
    expect(await getEndpoint(services, { teamId: user.teamId, endpoint: { id: endpoint.id } })).toMatchObject({ consecutiveFailures: 0, forwardingPaused: false });
  });
});
