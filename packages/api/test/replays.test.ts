import { afterAll, beforeAll, describe, expect } from "vitest";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { test } from "@rehook/vitest-config/service-fixtures";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { anonymousCaller, anotherUser, callerFor, capture, expectRefused, MISSING_ID, rehookCode, type Caller } from "./caller.js";

const NUL = "a\u0000b";
const LONE_SURROGATE = "a\ud800b";
const REFUSAL = "must not contain NUL characters or unpaired surrogates (U+D800–U+DFFF)";

let sink: Sink;
beforeAll(async () => {
  sink = await startSink((_req, res) => {
    res.writeHead(200, { "content-type": "text/plain" });
    res.end("replayed");
  });
});
afterAll(() => sink.close());

const sinkUrl = (path = "/replay") => `http://127.0.0.1:${sink.port}${path}`;

/** A capture-only endpoint of the caller's with one captured event. */
async function capturedEvent(services: Parameters<typeof capture>[0], caller: Caller, body = '{"type":"order.created"}') {
  const endpoint = await caller.endpoints.create({ name: "Replayed" });
  const eventId = await capture(services, endpoint.slug, body, [
    ["Content-Type", "application/json"],
    ["X-Custom", "kept"],
  ]);
  return { endpoint, eventId };
}

describe("without a session", () => {
  test("every replays procedure answers UNAUTHORIZED", async ({ services }) => {
    const { caller } = anonymousCaller(services);
    const calls: Array<(c: Caller) => Promise<unknown>> = [
      (c) => c.replays.create({ eventId: MISSING_ID, environment: "custom", customUrl: sinkUrl() }),
      (c) => c.replays.editSource({ eventId: MISSING_ID }),
      (c) => c.replays.localRequest({ eventId: MISSING_ID }),
      (c) => c.replays.recordLocal({ eventId: MISSING_ID, status: 200, body: null, latencyMs: 1, error: null }),
      (c) => c.replays.list({}),
      (c) => c.replays.get({ id: MISSING_ID }),
      (c) => c.replays.startBulk({ endpointId: MISSING_ID, environment: "custom", customUrl: sinkUrl() }),
      (c) => c.replays.bulk({ id: MISSING_ID }),
    ];
    for (const call of calls) await expectRefused(call(caller), "UNAUTHORIZED", "Sign in first, then try again.");
  });
});

describe("replays.create, list, get", () => {
  test("replays to a custom URL and answers the attempt; it is listed and read back whole", async ({ services, user }) => {
    const { caller } = await callerFor(services, user);
    const { eventId } = await capturedEvent(services, caller);
    const received = sink.received.length;
    const outcome = await caller.replays.create({ eventId, environment: "custom", customUrl: sinkUrl() });
    expect(outcome).toMatchObject({ target: "custom", eventResolved: false });
    const [replay] = outcome.attempts;
    expect(outcome.attempts).toHaveLength(1);
    expect(replay).toMatchObject({
      id: expect.any(String),
      eventId,
      environment: "custom",
      status: "delivered",
      responseStatus: 200,
      responseBody: "replayed",
      destinationUrl: sinkUrl(),
      destinationId: null,
      error: null,
      replayedAt: expect.any(Date),
      modified: false,
    });
    expect(sink.received.slice(received).map((r) => r.body.toString())).toEqual(['{"type":"order.created"}']);

    const listed = await caller.replays.list({ eventId });
    expect(listed.replays.map((r) => r.id)).toEqual([replay!.id]);
    expect(listed.nextCursor).toBeNull();
    const whole = await caller.replays.get({ id: replay!.id });
    expect(whole).toMatchObject({ ...replay, responseBodyBase64: Buffer.from("replayed").toString("base64"), requestBodyBase64: null });
  });

  test("sends the edits given as overrides, and marks the attempt modified", async ({ services, user }) => {
    const { caller } = await callerFor(services, user);
    const { eventId } = await capturedEvent(services, caller);
    const received = sink.received.length;
    const {
      attempts: [replay],
    } = await caller.replays.create({
      eventId,
      environment: "custom",
      customUrl: sinkUrl("/edited"),
      overrides: { method: "PUT", headers: [["Content-Type", "text/plain"]], body_base64: Buffer.from("edited").toString("base64") },
    });
    expect(replay).toMatchObject({ status: "delivered", modified: true });
    const sent = sink.received.slice(received);
    expect(sent.map((r) => [r.method, r.url, r.body.toString()])).toEqual([["PUT", "/edited", "edited"]]);
    expect((await caller.replays.get({ id: replay!.id })).requestBodyBase64).toBe(Buffer.from("edited").toString("base64"));
  });

  test("refuses an unknown environment (BAD_REQUEST) and an original replay of a capture-only endpoint (UNPROCESSABLE_CONTENT)", async ({ services, user }) => {
    const { caller } = await callerFor(services, user);
    const { eventId } = await capturedEvent(services, caller);
    const environment = await expectRefused(caller.replays.create({ eventId, environment: "moon" as "custom" }), "BAD_REQUEST", "Environment must be one of original, staging, local, custom, matched, failed.");
    expect(rehookCode(environment)).toBe("validation_failed");
    const original = await expectRefused(caller.replays.create({ eventId, environment: "original" }), "UNPROCESSABLE_CONTENT");
    expect(rehookCode(original)).toBe("unprocessable");
    expect((await caller.replays.list({ eventId })).replays).toEqual([]);
  });

  test("refuses a replay list filter that is not an id with BAD_REQUEST", async ({ services, user }) => {
    const { caller } = await callerFor(services, user);
    expect(rehookCode(await expectRefused(caller.replays.list({ eventId: "not-an-id" }), "BAD_REQUEST"))).toBe("validation_failed");
  });
});

describe("replays.editSource, localRequest, recordLocal", () => {
  test("answer what the browser edits or sends, and record the browser's result", async ({ services, user }) => {
    const { caller } = await callerFor(services, user);
    const { eventId } = await capturedEvent(services, caller, "{}");
    expect(await caller.replays.editSource({ eventId })).toEqual({
      method: "POST",
      headers: [
        ["Content-Type", "application/json"],
        ["X-Custom", "kept"],
      ],
      bodyBase64: Buffer.from("{}").toString("base64"),
      path: "",
      query: "",
    });
    expect(await caller.replays.localRequest({ eventId, localPort: 4000 })).toMatchObject({
      url: "http://localhost:4000/",
      method: "POST",
      keepProxyHeaders: false,
      bodyBase64: Buffer.from("{}").toString("base64"),
    });
    const recorded = await caller.replays.recordLocal({ eventId, localPort: 4000, status: 204, body: null, latencyMs: 12, error: null });
    expect(recorded).toMatchObject({ eventId, environment: "local", status: "delivered", responseStatus: 204, latencyMs: 12 });
    const failed = await caller.replays.recordLocal({ eventId, status: null, body: null, latencyMs: 3, error: null });
    expect(failed).toMatchObject({ status: "failed", error: "no answer" });
    expect((await caller.replays.list({ eventId })).replays).toHaveLength(2);
    await expectRefused(caller.replays.localRequest({ eventId, localPort: 70_000 }), "BAD_REQUEST");
  });
});

describe("replays.startBulk, bulk", () => {
  test("starts a bulk replay of the endpoint's failed events and answers the job", async ({ services, user }) => {
    const { caller } = await callerFor(services, user);
    const { endpoint } = await capturedEvent(services, caller);
    const job = await caller.replays.startBulk({ endpointId: endpoint.id, environment: "custom", customUrl: sinkUrl() });
    expect(job).toMatchObject({ endpointId: endpoint.id, environment: "custom", customUrl: sinkUrl(), statusFilter: "failed", total: 0 });
    await waitFor(async () => (await caller.replays.bulk({ id: job.id })).state === "finished", "the bulk replay to finish");
    expect(await caller.replays.bulk({ id: job.id })).toMatchObject({ id: job.id, total: 0, done: 0 });
  });

  test("refuses a custom URL with a NUL or an unpaired surrogate with BAD_REQUEST, and starts nothing", async ({ services, user, database }) => {
    const { caller } = await callerFor(services, user);
    const { endpoint } = await capturedEvent(services, caller);
    for (const value of [NUL, LONE_SURROGATE]) {
      const error = await expectRefused(
        caller.replays.startBulk({ endpointId: endpoint.id, environment: "custom", customUrl: `http://127.0.0.1:9/${value}` }),
        "BAD_REQUEST",
        `Custom URL ${REFUSAL}.`,
      );
      expect(rehookCode(error)).toBe("validation_failed");
    }
    expect(await database.query("select id from replay_jobs where endpoint_id = $1", [endpoint.id])).toEqual([]);
  });
});

describe("another user's event, replay and job", () => {
  test("answer NOT_FOUND, exactly like missing ones", async ({ services, user }) => {
    const alice = (await callerFor(services, user)).caller;
    const { endpoint, eventId } = await capturedEvent(services, alice);
    const replay = (await alice.replays.create({ eventId, environment: "custom", customUrl: sinkUrl() })).attempts[0]!;
    const job = await alice.replays.startBulk({ endpointId: endpoint.id, environment: "custom", customUrl: sinkUrl() });
    const bob = (await callerFor(services, await anotherUser(services))).caller;
    const calls: Array<[string, string, (id: string) => Promise<unknown>]> = [
      ["replays.create", eventId, (id) => bob.replays.create({ eventId: id, environment: "custom", customUrl: sinkUrl() })],
      ["replays.editSource", eventId, (id) => bob.replays.editSource({ eventId: id })],
      ["replays.localRequest", eventId, (id) => bob.replays.localRequest({ eventId: id })],
      ["replays.recordLocal", eventId, (id) => bob.replays.recordLocal({ eventId: id, status: 200, body: null, latencyMs: 1, error: null })],
      ["replays.get", replay.id, (id) => bob.replays.get({ id })],
      ["replays.startBulk", endpoint.id, (id) => bob.replays.startBulk({ endpointId: id, environment: "custom", customUrl: sinkUrl() })],
      ["replays.bulk", job.id, (id) => bob.replays.bulk({ id })],
    ];
    for (const [name, aliceId, call] of calls) {
      const foreign = await expectRefused(call(aliceId), "NOT_FOUND");
      const absent = await expectRefused(call(MISSING_ID), "NOT_FOUND");
      expect(rehookCode(foreign), name).toBe("not_found");
      expect(foreign.message.replace(aliceId, "ID"), name).toBe(absent.message.replace(MISSING_ID, "ID"));
    }
    expect((await bob.replays.list({ eventId })).replays).toEqual([]);
    expect((await bob.replays.list({})).replays).toEqual([]);
    expect((await alice.replays.list({ eventId })).replays.map((r) => r.id)).toEqual([replay.id]);
  });
});
