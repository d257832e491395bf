import { afterAll, beforeAll, describe, expect } from "vitest";
import type { EventSummary } from "@rehook/services";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { test } from "@rehook/vitest-config/service-fixtures";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { anonymousCaller, anotherUser, callerFor, capture, expectRefused, MISSING_ID, rehookCode, type Caller } from "./caller.js";

// Text PostgreSQL refuses (NUL) or cannot keep as sent (an unpaired surrogate).
const NUL = "a\u0000b";
const LONE_SURROGATE = "a\ud800b";
const REFUSAL = "must not contain NUL characters or unpaired surrogates (U+D800–U+DFFF)";

let sink: Sink;
beforeAll(async () => {
  sink = await startSink((_req, res) => {
    res.writeHead(201, { "content-type": "application/json", "x-answer": "yes" });
    res.end('{"received":true}');
  });
});
afterAll(() => sink.close());

describe("without a session", () => {
  test("every events procedure answers UNAUTHORIZED", async ({ services }) => {
    const { caller } = anonymousCaller(services);
    const calls: Array<(c: Caller) => Promise<unknown>> = [
      (c) => c.events.list({}),
      (c) => c.events.get({ id: MISSING_ID }),
      (c) => c.events.delete({ id: MISSING_ID }),
      (c) => c.events.volume({ range: "day" }),
      (c) => c.events.responses({ id: MISSING_ID }),
      (c) => c.events.compare({ id: MISSING_ID, left: "delivery:1", right: "delivery:1" }),
      (c) => c.events.attempt({ eventId: MISSING_ID, attempt: 1 }),
      (c) => c.events.retry({ id: MISSING_ID }),
      (c) => c.events.live({}),
    ];
    for (const call of calls) await expectRefused(call(caller), "UNAUTHORIZED", "Sign in first, then try again.");
  });
});

describe("events.list", () => {
  test("pages through events newest first with a keyset cursor, filtered by endpoint and status", async ({ services, user }) => {
    const { caller } = await callerFor(services, user);
    const endpoint = await caller.endpoints.create({ name: "pager" });
    const other = await caller.endpoints.create({ name: "elsewhere" });
    const ids: string[] = [];
    for (let i = 0; i < 7; i += 1) ids.push(await capture(services, endpoint.slug, JSON.stringify({ type: `page.${i}` })));
    await capture(services, other.slug, "{}");
    const seen: string[] = [];
    let before: string | undefined;
    for (;;) {
      const page = await caller.events.list({ endpointId: endpoint.id, status: "captured", limit: 3, ...(before ? { before } : {}) });
      expect(page.events.length).toBeLessThanOrEqual(3);
      seen.push(...page.events.map((e) => e.id));
      if (!page.nextCursor) break;
      before = page.nextCursor;
    }
    expect(seen).toEqual([...ids].reverse());
    expect((await caller.events.list({ status: "failed" })).events).toEqual([]);
    expect((await caller.events.list({})).events).toHaveLength(8);
  });

  // test.for, not test.each: it hands the fixtures to the test.
  test.for([
    ["search", "Search"],
    ["source", "Source"],
    ["eventType", "Event type"],
  ] as const)("answers BAD_REQUEST (validation_failed) for %s with a NUL or an unpaired surrogate", async ([field, label], { services, user }) => {
    const { caller } = await callerFor(services, user);
    for (const value of [NUL, LONE_SURROGATE]) {
      const error = await expectRefused(caller.events.list({ [field]: value }), "BAD_REQUEST", `${label} ${REFUSAL}.`);
      expect(rehookCode(error)).toBe("validation_failed");
    }
    expect(await caller.events.list({ [field]: "order" })).toMatchObject({ events: expect.any(Array) });
  });
});

describe("events.get", () => {
  test("shows an event's payload, headers in order, its capture URL and a curl command", async ({ services, user }) => {
    const { caller } = await callerFor(services, user);
    const endpoint = await caller.endpoints.create({ name: "Orders" });
    const sent: Array<[string, string]> = [
      ["Content-Type", "application/json"],
      ["X-Dup", "1"],
      ["Stripe-Signature", "t=1,v1=a"],
      ["X-Dup", "2"],
    ];
    const eventId = await capture(services, endpoint.slug, '{"type":"order.created"}', sent, { subPath: "/orders", query: "a=1" });
    const event = await caller.events.get({ id: eventId });
    expect(event.payload).toMatchObject({ kind: "json", pretty: '{\n  "type": "order.created"\n}' });
    expect(event.headers).toEqual(sent);
    expect(event.captureUrl).toBe(`http://rehook.test/api/webhook/${endpoint.slug}/orders?a=1`);
    expect(event.curl).toContain(`/api/webhook/${endpoint.slug}`);
    expect(event.curl).toContain("--data-binary '{\"type\":\"order.created\"}'");
    expect(event).toMatchObject({
      id: eventId,
      endpointId: endpoint.id,
      status: "captured",
      body: { text: '{"type":"order.created"}', bytes: 24 },
      bodyPreviewBytes: 24,
      bodyTruncated: false,
      bodyFileName: `event-${eventId}.json`,
      response: null,
      attempts: [],
    });
  });

  test("shows a delivered event's delivery, attempt and answer; responses and compare list and compare it", async ({ services, user }) => {
    const { caller } = await callerFor(services, user);
    const endpoint = await caller.endpoints.create({ name: "Forwarded", destinationUrl: `http://127.0.0.1:${sink.port}/in` });
    const eventId = await capture(services, endpoint.slug, '{"n":1}', [["Content-Type", "application/json"]], { subPath: "/x" });
    await waitFor(async () => (await caller.events.get({ id: eventId })).status === "delivered", "the delivery");
    const event = await caller.events.get({ id: eventId });
    expect(event.deliveries).toEqual([expect.objectContaining({ url: `http://127.0.0.1:${sink.port}/in`, status: "delivered" })]);
    const destinationId = event.deliveries[0]!.destinationId!;
    expect(event.attempts).toEqual([expect.objectContaining({ destinationId, destinationName: "127.0.0.1", destinationUrl: `http://127.0.0.1:${sink.port}/in` })]);
    expect(event.response).toMatchObject({ body: undefined, bodyBase64: Buffer.from('{"received":true}').toString("base64"), payload: { kind: "json" } });

    const attempt = await caller.events.attempt({ eventId, attempt: 1 });
    expect(attempt).toMatchObject({ bodyBase64: Buffer.from('{"received":true}').toString("base64"), payload: { kind: "json" } });
    expect(attempt).not.toHaveProperty("responseBody");
    const missing = await expectRefused(caller.events.attempt({ eventId, attempt: 2 }), "NOT_FOUND", `Event ${eventId} has no attempt 2. Open the event to see its attempts.`);
    expect(rehookCode(missing)).toBe("not_found");
    await expectRefused(caller.events.attempt({ eventId, attempt: 0 }), "BAD_REQUEST");

    const responses = await caller.events.responses({ id: eventId });
    expect(responses).toEqual([
      expect.objectContaining({ ref: `delivery:${destinationId}:1`, kind: "delivery", label: "Original delivery", destinationUrl: `http://127.0.0.1:${sink.port}/in/x` }),
    ]);
    // By destination and number, and (one destination has an attempt 1) by number alone.
    const compared = await caller.events.compare({ id: eventId, left: `delivery:${destinationId}:1`, right: "delivery:1" });
    expect(compared).toMatchObject({ statusChanged: false });
    await expectRefused(caller.events.compare({ id: eventId, left: "x".repeat(201), right: "delivery:1" }), "BAD_REQUEST");
  });
});

describe("events.delete, retry, volume", () => {
  test("delete answers null and the event is gone", async ({ services, user }) => {
    const { caller } = await callerFor(services, user);
    const endpoint = await caller.endpoints.create({ name: "Doomed" });
    const eventId = await capture(services, endpoint.slug, "{}");
    expect(await caller.events.delete({ id: eventId })).toBeNull();
    await expectRefused(caller.events.get({ id: eventId }), "NOT_FOUND");
  });

  test("retry of a capture-only event is UNPROCESSABLE_CONTENT with the use case's sentence", async ({ services, user }) => {
    const { caller } = await callerFor(services, user);
    const endpoint = await caller.endpoints.create({ name: "Capture only" });
    const eventId = await capture(services, endpoint.slug, "{}");
    const error = await expectRefused(
      caller.events.retry({ id: eventId }),
      "UNPROCESSABLE_CONTENT",
      `Event ${eventId} has no destination to retry: its endpoint only captures. Add a destination URL to the endpoint, or replay the event to a URL.`,
    );
    expect(rehookCode(error)).toBe("unprocessable");
  });

  test("retry of a delivered event is CONFLICT", async ({ services, user }) => {
    const { caller } = await callerFor(services, user);
    const endpoint = await caller.endpoints.create({ name: "Delivered", destinationUrl: `http://127.0.0.1:${sink.port}/` });
    const eventId = await capture(services, endpoint.slug, "{}");
    await waitFor(async () => (await caller.events.get({ id: eventId })).status === "delivered", "the delivery");
    const error = await expectRefused(caller.events.retry({ id: eventId }), "CONFLICT", `Event ${eventId} is delivered, and only pending and failed events can be retried. Replay it instead.`);
    expect(rehookCode(error)).toBe("conflict");
  });

  test("volume counts the user's events across endpoints", async ({ services, user }) => {
    const { caller } = await callerFor(services, user);
    const first = await caller.endpoints.create({ name: "One" });
    const second = await caller.endpoints.create({ name: "Two" });
    await capture(services, first.slug, "{}");
    await capture(services, second.slug, "{}");
    const volume = await caller.events.volume({ range: "day" });
    expect(volume).toMatchObject({ range: "day", totals: { captured: 2 } });
  });
});

describe("events.live", () => {
  test("refuses a search with a NUL before streaming, instead of failing at the first event", async ({ services, user }) => {
    const { caller } = await callerFor(services, user);
    const error = await expectRefused(caller.events.live({ search: NUL }), "BAD_REQUEST", `Search ${REFUSAL}.`);
    expect(rehookCode(error)).toBe("validation_failed");
  });

  test("yields the user's new events, not another user's, and ends when the signal aborts", async ({ services, user }) => {
    const stop = new AbortController();
    const { caller } = await callerFor(services, user, { signal: stop.signal });
    const endpoint = await caller.endpoints.create({ name: "Live" });
    const bob = await callerFor(services, await anotherUser(services));
    const bobEndpoint = await bob.caller.endpoints.create({ name: "Bob live" });
    const stream = await caller.events.live({});
    const iterator = stream[Symbol.asyncIterator]();
    const next = iterator.next();
    await capture(services, bobEndpoint.slug, "{}");
    const eventId = await capture(services, endpoint.slug, "{}");
    const batch = await next;
    if (batch.done) throw new Error("the stream ended before the event came");
    const rows: EventSummary[] = batch.value;
    expect(rows.map((row) => row.id)).toEqual([eventId]);
    expect(rows[0]).toMatchObject({ endpointId: endpoint.id, status: "captured" });
    stop.abort();
    expect((await iterator.next()).done).toBe(true);
  });
});

describe("another user's event", () => {
  test("answers NOT_FOUND on every procedure, exactly like a missing one, and is not listed", async ({ services, user }) => {
    const alice = await callerFor(services, user);
    const aliceEndpoint = await alice.caller.endpoints.create({ name: "Alice orders" });
    const aliceEventId = await capture(services, aliceEndpoint.slug, '{"type":"order.created"}');
    const bob = (await callerFor(services, await anotherUser(services))).caller;
    const calls: Array<[string, (id: string) => Promise<unknown>]> = [
      ["events.get", (id) => bob.events.get({ id })],
      ["events.responses", (id) => bob.events.responses({ id })],
      ["events.compare", (id) => bob.events.compare({ id, left: "delivery:1", right: "delivery:1" })],
      ["events.retry", (id) => bob.events.retry({ id })],
      ["events.delete", (id) => bob.events.delete({ id })],
      ["replays.editSource", (eventId) => bob.replays.editSource({ eventId })],
    ];
    for (const [name, call] of calls) {
      const foreign = await expectRefused(call(aliceEventId), "NOT_FOUND");
      const absent = await expectRefused(call(MISSING_ID), "NOT_FOUND");
      expect(foreign.message.replace(aliceEventId, "ID"), name).toBe(absent.message.replace(MISSING_ID, "ID"));
    }
    expect((await bob.events.list({ endpointId: aliceEndpoint.id })).events).toEqual([]);
    expect((await bob.events.list({})).events).toEqual([]);
    expect((await alice.caller.events.get({ id: aliceEventId })).id).toBe(aliceEventId);
  });
});
