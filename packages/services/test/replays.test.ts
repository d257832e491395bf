import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import {
  createEndpoint,
  editableReplayRequest,
  endpointSecret,
  getEvent,
  getReplay,
  listReplays,
  localReplayRequest,
  recordLocalReplay,
  replayEvent,
  updateEndpoint,
  type Services,
} from "@rehook/services";
import { capture, expectRefused, MISSING_ID, test } from "./support.js";

// Replays through the graph's delivery workers to a loopback destination: as captured or
// edited (method, headers, body), to the endpoint's destination, its staging host or any URL;
// local replays performed by the browser and recorded here; the attempts listed and read by
// their owner only. A replay never changes the event.

const original = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x31, 0x7d, 0x00, 0xff]); // JSON-ish, then NUL and invalid UTF-8
const capturedHeaders: Array<[string, string]> = [
  ["Content-Type", "application/json"],
  ["X-Dup", "1"],
  ["X-Dup", "2"],
];
const noEvent = (id: string) => `There is no event with the id ${id}. It may have been deleted already.`;

let sink: Sink;
/** The status the sink answers with (200 unless a test says otherwise). */
let sinkStatus = 200;
beforeAll(async () => {
  sink = await startSink((_req, res) => {
    res.statusCode = sinkStatus;
    res.setHeader("x-sink", "yes");
    res.end(sinkStatus === 200 ? "ok" : "refused");
  });
});
afterAll(() => sink.close());

/** What arrived, minus what the sending connection sets itself. */
function pairs(raw: string[]): Array<[string, string]> {
  const list: Array<[string, string]> = [];
  for (let i = 0; i < raw.length; i += 2) list.push([raw[i]!, raw[i + 1]!]);
  return list.filter(([name]) => !["host", "connection"].includes(name.toLowerCase()));
}

/** An endpoint forwarding to the sink, and an event of it captured and delivered (its bytes and headers as above). */
async function deliveredEvent(services: Services, teamId: string, options: { subPath?: string; query?: string } = {}) {
  const endpoint = await createEndpoint(services, { teamId, name: "edits", destinationUrl: `http://127.0.0.1:${sink.port}/in` });
  const eventId = await capture(services, endpoint.slug, original, [...capturedHeaders, ["Content-Length", String(original.length)]], options);
  await waitFor(async () => (await getEvent(services, { teamId, eventId })).status === "delivered", `event ${eventId} delivered`);
  return { endpoint, eventId };
}

const toSink = (path = "/edited") => `http://127.0.0.1:${sink.port}${path}`;

describe("edit-and-replay (replayEvent with overrides)", () => {
  test("sends the edited method, the whole new header list and the text body; Content-Length from the bytes sent; the event unchanged", async ({ services, user, database }) => {
    const { eventId } = await deliveredEvent(services, user.teamId);
    const text = '{"edited": "héllo"}';
    const headers: Array<[string, string]> = [
      ["Content-Type", "application/json; charset=utf-8"],
      ["X-Edited", "yes"],
      ["Content-Length", "999"],
      ["Connection", "close, X-Gone"],
      ["X-Gone", "hop"],
    ];
    const replay = await replayEvent(services, { teamId: user.teamId, userId: user.id, eventId, environment: "custom", customUrl: toSink(), overrides: { method: "PUT", headers, body: text } });
    expect(replay).toMatchObject({ eventId, environment: "custom", status: "delivered", responseStatus: 200, responseBody: "ok", destinationUrl: toSink(), modified: true });
    const got = sink.received.at(-1)!;
    expect(got.method).toBe("PUT");
    expect(got.url).toBe("/edited");
    expect(got.body.equals(Buffer.from(text, "utf8"))).toBe(true);
    expect(pairs(got.rawHeaders)).toEqual([
      ["Content-Type", "application/json; charset=utf-8"],
      ["X-Edited", "yes"],
      ["content-length", String(Buffer.byteLength(text))],
    ]);
    const [row] = await database.query<{ request_method: string; request_headers: unknown; request_body: Buffer; modified: boolean }>(
      "select request_method, request_headers, request_body, modified from replay_attempts where id = $1",
      [replay.id],
    );
    expect(row).toEqual({ request_method: "PUT", request_headers: headers.slice(0, 2), request_body: Buffer.from(text, "utf8"), modified: true });
    const [event] = await database.query<{ method: string; body: Buffer; status: string }>("select method, body, status from events where id = $1", [eventId]);
    expect(event!.method).toBe("POST");
    expect(event!.body.equals(original)).toBe(true);
    expect(event!.status).toBe("delivered");
  });

  test("sends binary body_base64 bytes exactly, keeping the captured method and headers", async ({ services, user }) => {
    const { eventId } = await deliveredEvent(services, user.teamId);
    const bytes = Buffer.from([0x00, 0xff, 0x10, 0x80, 0x0d, 0x0a]);
    const replay = await replayEvent(services, { teamId: user.teamId, userId: user.id, eventId, environment: "custom", customUrl: toSink(), overrides: { body_base64: bytes.toString("base64") } });
    expect(replay).toMatchObject({ status: "delivered", modified: true });
    const got = sink.received.at(-1)!;
    expect(got.method).toBe("POST");
    expect(got.body.equals(bytes)).toBe(true);
    expect(pairs(got.rawHeaders)).toEqual([...capturedHeaders, ["content-length", String(bytes.length)]]);
  });

  test("a plain replay still sends the original bytes and answers modified: false", async ({ services, user, database }) => {
    const { eventId } = await deliveredEvent(services, user.teamId);
    const replay = await replayEvent(services, { teamId: user.teamId, userId: user.id, eventId, environment: "custom", customUrl: toSink() });
    expect(replay).toMatchObject({ status: "delivered", modified: false });
    const got = sink.received.at(-1)!;
    expect(got.method).toBe("POST");
    expect(got.body.equals(original)).toBe(true);
    expect(pairs(got.rawHeaders)).toEqual([...capturedHeaders, ["content-length", String(original.length)]]);
    const [row] = await database.query<{ request_method: string; request_body: Buffer | null; modified: boolean }>("select request_method, request_body, modified from replay_attempts where id = $1", [replay.id]);
    expect(row).toEqual({ request_method: "POST", request_body: null, modified: false });
  });

  test("refuses CR, LF and NUL in header values, bad names, and body with body_base64, sending nothing", async ({ services, user }) => {
    const { eventId } = await deliveredEvent(services, user.teamId);
    const before = sink.received.length;
    const cases: Array<[unknown, RegExp]> = [
      [{ headers: [["X-A", "one\r\nX-Injected: two"]] }, /line break or NUL/],
      [{ headers: [["X-A", "one\ntwo"]] }, /line break or NUL/],
      [{ headers: [["X-A", "nul\u0000"]] }, /line break or NUL/],
      [{ headers: [["X A", "v"]] }, /invalid name/],
      [{ headers: Array.from({ length: 101 }, (_, i) => [`X-${i}`, "v"]) }, /at most 100 headers/],
      [{ body: "text", body_base64: "AA==" }, /either body or body_base64/],
      [{ body_base64: "not base64!" }, /standard base64/],
      [{ method: "GET\r\n" }, /HTTP method name/],
      [{ method: "CONNECT" }, /cannot be replayed/],
      [{ url: "http://elsewhere" }, /unknown field "url"/],
      ["PUT", /must be an object/],
    ];
    for (const [overrides, message] of cases) {
      const refused = await expectRefused(replayEvent(services, { teamId: user.teamId, userId: user.id, eventId, environment: "custom", customUrl: toSink(), overrides }), "validation_failed", message);
      expect(refused.message, JSON.stringify(overrides).slice(0, 80)).toMatch(/^[A-Z].*\.$/);
    }
    expect(sink.received.length).toBe(before);
  });

  test("refuses an edited body over the server's payload limit", async ({ services, user }) => {
    const { eventId } = await deliveredEvent(services, user.teamId);
    const small = { ...services, maxPayloadBytes: 8 };
    await expectRefused(replayEvent(small, { teamId: user.teamId, userId: user.id, eventId, environment: "custom", customUrl: toSink(), overrides: { body: "123456789" } }), "payload_too_large", "The edited body exceeds the limit of 8 bytes. Send a smaller one.");
    const sent = await replayEvent(small, { teamId: user.teamId, userId: user.id, eventId, environment: "custom", customUrl: toSink(), overrides: { body: "12345678" } });
    expect(sent.status).toBe("delivered");
  });

  test("signing covers the edited body: the signature verifies over the bytes sent, with the event's id", async ({ services, user }) => {
    const { endpoint, eventId } = await deliveredEvent(services, user.teamId);
    await updateEndpoint(services, { teamId: user.teamId, endpoint: { id: endpoint.id }, changes: { signRequests: true } });
    const { secret } = await endpointSecret(services, { teamId: user.teamId, endpoint: { id: endpoint.id } });
    const text = '{"signed":"edit"}';
    const replay = await replayEvent(services, { teamId: user.teamId, userId: user.id, eventId, environment: "original", overrides: { headers: [["Content-Type", "application/json"]], body: text } });
    expect(replay).toMatchObject({ status: "delivered", modified: true, destinationUrl: `http://127.0.0.1:${sink.port}/in` });
    const got = sink.received.at(-1)!;
    expect(got.body.toString()).toBe(text);
    const value = (name: string) => pairs(got.rawHeaders).find(([n]) => n.toLowerCase() === name)![1];
    expect(value("webhook-id")).toBe(eventId);
    const timestamp = value("webhook-timestamp");
    // Standard Webhooks: base64(HMAC-SHA256(base64-decoded secret, "{id}.{timestamp}.{body}")), computed here independently.
    const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
    const expected = createHmac("sha256", key).update(`${eventId}.${timestamp}.${text}`).digest("base64");
    expect(value("webhook-signature").split(" ")).toContain(`v1,${expected}`);
    expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(300);
  });
});

describe("replayEvent's targets", () => {
  test("records a refused answer as a failed attempt, the event left as it was", async ({ services, user }) => {
    const { eventId } = await deliveredEvent(services, user.teamId);
    sinkStatus = 500;
    try {
      const replay = await replayEvent(services, { teamId: user.teamId, userId: user.id, eventId, environment: "custom", customUrl: toSink("/down") });
      expect(replay).toMatchObject({ status: "failed", responseStatus: 500, responseBody: "refused", error: "destination answered 500" });
    } finally {
      sinkStatus = 200;
    }
    expect((await getEvent(services, { teamId: user.teamId, eventId })).status).toBe("delivered");
  });

  test("original keeps the captured sub-path and query; staging swaps the host for the staging host", async ({ services, user }) => {
    const { endpoint, eventId } = await deliveredEvent(services, user.teamId, { subPath: "/orders/7", query: "a=1" });
    expect((await replayEvent(services, { teamId: user.teamId, userId: user.id, eventId, environment: "original" })).destinationUrl).toBe(`http://127.0.0.1:${sink.port}/in/orders/7?a=1`);
    expect(sink.received.at(-1)!.url).toBe("/in/orders/7?a=1");
    await expectRefused(replayEvent(services, { teamId: user.teamId, userId: user.id, eventId, environment: "staging" }), "unprocessable", /set a staging hostname on the endpoint first/);
    await updateEndpoint(services, { teamId: user.teamId, endpoint: { id: endpoint.id }, changes: { stagingHost: `localhost:${sink.port}` } });
    const staged = await replayEvent(services, { teamId: user.teamId, userId: user.id, eventId, environment: "staging" });
    expect(staged).toMatchObject({ environment: "staging", status: "delivered", destinationUrl: `http://localhost:${sink.port}/in/orders/7?a=1` });
  });

  test("refuses what is wrong in itself (400) apart from what this endpoint or the address policy cannot do (422)", async ({ services, user }) => {
    const { eventId } = await deliveredEvent(services, user.teamId);
    const inbox = await createEndpoint(services, { teamId: user.teamId, name: "capture only" });
    const captured = await capture(services, inbox.slug, "{}");
    await expectRefused(replayEvent(services, { teamId: user.teamId, userId: user.id, eventId, environment: "prod" }), "validation_failed", /^Environment must be one of original, staging, local, custom, matched, failed\.$/);
    await expectRefused(replayEvent(services, { teamId: user.teamId, userId: user.id, eventId, environment: "custom" }), "validation_failed", /customUrl is required for a custom replay/i);
    await expectRefused(replayEvent(services, { teamId: user.teamId, userId: user.id, eventId, environment: "custom", customUrl: "ftp://example.com/" }), "validation_failed", /customUrl: /);
    await expectRefused(replayEvent(services, { teamId: user.teamId, userId: user.id, eventId: captured, environment: "original" }), "unprocessable", /this endpoint has no destination to replay to/i);
    const strict = { ...services, addressPolicy: { allowPrivate: false } };
    const refused = await expectRefused(replayEvent(strict, { teamId: user.teamId, userId: user.id, eventId, environment: "custom", customUrl: toSink() }), "unprocessable", /^replay target refused: /);
    expect(refused.message).toMatch(/ALLOW_PRIVATE_DESTINATIONS/);
  });

  test("another team's event answers as missing, and nothing is sent", async ({ services, user, other }) => {
    const { eventId } = await deliveredEvent(services, user.teamId);
    const before = sink.received.length;
    await expectRefused(replayEvent(services, { teamId: other.teamId, userId: other.id, eventId, environment: "custom", customUrl: toSink() }), "not_found", noEvent(eventId));
    await expectRefused(replayEvent(services, { teamId: user.teamId, userId: user.id, eventId: MISSING_ID, environment: "custom", customUrl: toSink() }), "not_found", noEvent(MISSING_ID));
    expect(sink.received.length).toBe(before);
  });
});

describe("local replays", () => {
  test("localReplayRequest gives the browser the target on localhost, the request as captured and the proxy-header choice", async ({ services, user }) => {
    const { eventId } = await deliveredEvent(services, user.teamId, { subPath: "/hooks", query: "x=1" });
    expect(await localReplayRequest(services, { teamId: user.teamId, userId: user.id, eventId })).toEqual({
      url: "http://localhost:3000/in/hooks?x=1",
      method: "POST",
      headers: [...capturedHeaders, ["Content-Length", String(original.length)]],
      keepProxyHeaders: false,
      bodyBase64: original.toString("base64"),
    });
    expect((await localReplayRequest(services, { teamId: user.teamId, userId: user.id, eventId, localPort: 8080 })).url).toBe("http://localhost:8080/in/hooks?x=1");
    await expectRefused(localReplayRequest(services, { teamId: user.teamId, userId: user.id, eventId, localPort: 70_000 }), "validation_failed");
    await expectRefused(localReplayRequest(services, { teamId: user.teamId, userId: user.id, eventId: MISSING_ID }), "not_found", noEvent(MISSING_ID));
  });

  test("recordLocalReplay stores the browser's result: 2xx delivered, anything else or no answer failed", async ({ services, user }) => {
    const { eventId } = await deliveredEvent(services, user.teamId);
    const ok = await recordLocalReplay(services, { teamId: user.teamId, userId: user.id, eventId, localPort: 4000, result: { status: 204, body: "", latencyMs: 12, error: null } });
    expect(ok).toMatchObject({ eventId, environment: "local", status: "delivered", responseStatus: 204, latencyMs: 12, destinationUrl: "http://localhost:4000/in", modified: false });
    const refused = await recordLocalReplay(services, { teamId: user.teamId, userId: user.id, eventId, result: { status: 500, body: "boom", latencyMs: 3, error: null } });
    expect(refused).toMatchObject({ status: "failed", responseStatus: 500, responseBody: "boom", destinationUrl: "http://localhost:3000/in", error: null });
    const silent = await recordLocalReplay(services, { teamId: user.teamId, userId: user.id, eventId, result: { status: null, body: null, latencyMs: 0, error: null } });
    expect(silent).toMatchObject({ status: "failed", responseStatus: null, error: "no answer" });
    // Text from the user's machine is made storable rather than refused.
    const odd = await recordLocalReplay(services, { teamId: user.teamId, userId: user.id, eventId, result: { status: null, body: null, latencyMs: 0, error: "refused\u0000here" } });
    expect(odd.error).not.toContain("\u0000");
    expect(odd.error).toMatch(/^refused.here$/);
  });

  test("recordLocalReplay refuses an impossible result, and another team's event", async ({ services, user, other }) => {
    const { eventId } = await deliveredEvent(services, user.teamId);
    await expectRefused(recordLocalReplay(services, { teamId: user.teamId, userId: user.id, eventId, result: { status: 1000, body: null, latencyMs: 0, error: null } }), "validation_failed");
    await expectRefused(recordLocalReplay(services, { teamId: user.teamId, userId: user.id, eventId, result: { status: 200, body: null, latencyMs: -1, error: null } }), "validation_failed");
    await expectRefused(recordLocalReplay(services, { teamId: user.teamId, userId: user.id, eventId, localPort: 0, result: { status: 200, body: null, latencyMs: 1, error: null } }), "validation_failed");
    await expectRefused(recordLocalReplay(services, { teamId: other.teamId, userId: other.id, eventId, result: { status: 200, body: null, latencyMs: 1, error: null } }), "not_found", noEvent(eventId));
    expect((await listReplays(services, { teamId: user.teamId, eventId })).replays).toEqual([]);
  });
});

describe("editableReplayRequest", () => {
  test("starts from the headers a replay would send: hop-by-hop and proxy headers dropped unless kept", async ({ services, user, other }) => {
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "editable" });
    const headers: Array<[string, string]> = [
      ["Content-Type", "text/plain"],
      ["Connection", "keep-alive"],
      ["X-Forwarded-For", "198.51.100.1"],
      ["X-Real-IP", "198.51.100.1"],
      ["X-Custom", "kept"],
    ];
    const eventId = await capture(services, endpoint.slug, "hello", headers, { method: "PATCH" });
    expect(await editableReplayRequest(services, { teamId: user.teamId, userId: user.id, eventId })).toEqual({
      method: "PATCH",
      headers: [
        ["Content-Type", "text/plain"],
        ["X-Custom", "kept"],
      ],
      bodyBase64: Buffer.from("hello").toString("base64"),
      path: "",
      query: "",
    });
    await updateEndpoint(services, { teamId: user.teamId, endpoint: { id: endpoint.id }, changes: { keepProxyHeaders: true } });
    expect((await editableReplayRequest(services, { teamId: user.teamId, userId: user.id, eventId })).headers).toEqual([
      ["Content-Type", "text/plain"],
      ["X-Forwarded-For", "198.51.100.1"],
      ["X-Real-IP", "198.51.100.1"],
      ["X-Custom", "kept"],
    ]);
    await expectRefused(editableReplayRequest(services, { teamId: other.teamId, userId: other.id, eventId }), "not_found", noEvent(eventId));
  });
});

describe("listReplays and getReplay", () => {
  test("list the team's attempts newest first, by event, endpoint and status, a page at a time", async ({ services, user, other }) => {
    const first = await deliveredEvent(services, user.teamId);
    const second = await deliveredEvent(services, user.teamId);
    const a = await replayEvent(services, { teamId: user.teamId, userId: user.id, eventId: first.eventId, environment: "custom", customUrl: toSink() });
    sinkStatus = 500;
    const b = await replayEvent(services, { teamId: user.teamId, userId: user.id, eventId: first.eventId, environment: "custom", customUrl: toSink() }).finally(() => (sinkStatus = 200));
    const c = await replayEvent(services, { teamId: user.teamId, userId: user.id, eventId: second.eventId, environment: "custom", customUrl: toSink(), overrides: { body: "x" } });

    const all = await listReplays(services, { teamId: user.teamId });
    expect(all.replays.map((replay) => replay.id)).toEqual([c.id, b.id, a.id]);
    expect(all.nextCursor).toBeNull();
    expect(all.replays[0]).toMatchObject({ eventId: second.eventId, endpointId: second.endpoint.id, endpointName: "edits", environment: "custom", status: "delivered", modified: true });
    expect((await listReplays(services, { teamId: user.teamId, eventId: first.eventId })).replays.map((replay) => replay.id)).toEqual([b.id, a.id]);
    expect((await listReplays(services, { teamId: user.teamId, endpointId: second.endpoint.id })).replays.map((replay) => replay.id)).toEqual([c.id]);
    expect((await listReplays(services, { teamId: user.teamId, status: "failed" })).replays.map((replay) => replay.id)).toEqual([b.id]);

    const page = await listReplays(services, { teamId: user.teamId, limit: 2 });
    expect(page.replays.map((replay) => replay.id)).toEqual([c.id, b.id]);
    expect(page.nextCursor).toBe(b.id);
    expect(await listReplays(services, { teamId: user.teamId, limit: 2, before: page.nextCursor! })).toMatchObject({ replays: [{ id: a.id }], nextCursor: null });

    expect(await listReplays(services, { teamId: other.teamId })).toEqual({ replays: [], nextCursor: null });
    expect((await listReplays(services, { teamId: other.teamId, eventId: first.eventId })).replays).toEqual([]);
  });

  test("list refuses a bad filter or page size", async ({ services, user }) => {
    await expectRefused(listReplays(services, { teamId: user.teamId, limit: 0 }), "validation_failed");
    await expectRefused(listReplays(services, { teamId: user.teamId, limit: 101 }), "validation_failed");
    await expectRefused(listReplays(services, { teamId: user.teamId, status: "pending" }), "validation_failed");
    await expectRefused(listReplays(services, { teamId: user.teamId, eventId: "nope" }), "validation_failed");
  });

  test("get answers one attempt with its whole response and what was sent; another team's as missing", async ({ services, user, other }) => {
    const { eventId } = await deliveredEvent(services, user.teamId);
    const edited = await replayEvent(services, { teamId: user.teamId, userId: user.id, eventId, environment: "custom", customUrl: toSink(), overrides: { method: "PUT", body: "edited" } });
    const got = await getReplay(services, { teamId: user.teamId, attemptId: edited.id });
    expect(got).toMatchObject({ ...edited, responseTruncated: false, responseBodyBase64: Buffer.from("ok").toString("base64"), requestMethod: "PUT", requestBodyBase64: Buffer.from("edited").toString("base64") });
    expect(got.responseHeaders).toContainEqual(["x-sink", "yes"]);
    // What was sent, as stored: the captured headers (Content-Length is the sender's, from the bytes).
    expect(got.requestHeaders).toEqual(capturedHeaders);
    const plain = await replayEvent(services, { teamId: user.teamId, userId: user.id, eventId, environment: "custom", customUrl: toSink() });
    expect(await getReplay(services, { teamId: user.teamId, attemptId: plain.id })).toMatchObject({ requestMethod: "POST", requestBodyBase64: null, modified: false });
    const missing = (id: string) => `There is no replay with the id ${id}. Check the id, or list replays to find it.`;
    await expectRefused(getReplay(services, { teamId: other.teamId, attemptId: edited.id }), "not_found", missing(edited.id));
    await expectRefused(getReplay(services, { teamId: user.teamId, attemptId: MISSING_ID }), "not_found", missing(MISSING_ID));
  });
});
