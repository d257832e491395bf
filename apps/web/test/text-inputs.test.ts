import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { DashboardClient, type TrpcEnvelope } from "./dashboard-client.js";
import { openSse, type SseStream } from "./sse-client.js";
import { startTestServer, type TestServer } from "./test-server.js";

// Text PostgreSQL refuses (NUL) or cannot keep as sent (an unpaired surrogate) is answered 400
// with the field named on every surface, never a 500 from the database driver.

const NUL = "a\u0000b";
const LONE_SURROGATE = "a\ud800b";
const REFUSAL = "must not contain NUL characters or unpaired surrogates (U+D800–U+DFFF)";

let t: TestServer;
let owner: DashboardClient;
let key: string;
let endpoint: { id: string; slug: string };
const streams: SseStream[] = [];

beforeAll(async () => {
  t = await startTestServer({ ALLOW_PRIVATE_DESTINATIONS: "true" });
  owner = new DashboardClient(t.rehook.url);
  expect((await owner.postForm("/signup", { email: "text-inputs@example.com", password: "a long enough password" })).status).toBe(303);
  key = (data(await owner.mutate("apiKeys.create", { name: "tests" })) as { key: string }).key;
  endpoint = data(await owner.mutate("endpoints.create", { name: "Orders" })) as { id: string; slug: string };
  const captured = await fetch(`${t.rehook.url}/api/webhook/${endpoint.slug}`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"type":"order.created"}' });
  expect(captured.status).toBe(200);
});
afterAll(async () => {
  for (const stream of streams) stream.close();
  await t.close();
});

function data(envelope: { body: TrpcEnvelope }): unknown {
  if (!envelope.body.result) throw new Error(`procedure failed: ${JSON.stringify(envelope.body.error)}`);
  return envelope.body.result.data.json;
}

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; json: { error?: { code: string; message: string; details?: Array<{ path: unknown[] }> } } }> {
  const response = await fetch(`${t.rehook.url}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    // JSON.stringify writes an unpaired surrogate as a \ud800 escape: the server's JSON.parse gets it back.
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: JSON.parse(await response.text()) };
}

/** The answer of a procedure that must refuse its input: 400 BAD_REQUEST, validation_failed, with the message. */
function expectBadRequest(envelope: { status: number; body: TrpcEnvelope }, message: string): void {
  expect(envelope.status, JSON.stringify(envelope.body)).toBe(400);
  expect(envelope.body.error!.json.data).toMatchObject({ code: "BAD_REQUEST", httpStatus: 400, rehookCode: "validation_failed" });
  expect(envelope.body.error!.json.message).toBe(message);
}

async function endpointNames(): Promise<string[]> {
  return (await t.db.query<{ name: string }>("select name from endpoints where user_id = (select id from users where email = 'text-inputs@example.com') order by name")).map((row) => row.name);
}

describe("the public API", () => {
  it.each([
    ["q", "Q"],
    ["source", "Source"],
    ["event_type", "Event type"],
  ])("answers 400 for %s with a NUL, on the list and on the export (not a cut download)", async (parameter, label) => {
    for (const path of [`/events?${parameter}=a%00b`, `/events/export?${parameter}=a%00b`]) {
      const { status, json } = await api("GET", path);
      expect(status, path).toBe(400);
      expect(json.error).toMatchObject({ code: "validation_failed", message: `The request query is not valid. ${label} ${REFUSAL}.` });
      expect(json.error!.details![0]!.path).toEqual([parameter]);
    }
  });

  it("answers 400 for an endpoint name with a NUL or an unpaired surrogate, on create and on update, and stores nothing", async () => {
    const before = await endpointNames();
    for (const name of [NUL, LONE_SURROGATE, `  ${NUL}  `]) {
      for (const [method, path] of [["POST", "/endpoints"], ["PATCH", `/endpoints/${endpoint.id}`]] as const) {
        const { status, json } = await api(method, path, { name });
        expect(status, `${method} ${JSON.stringify(name)}`).toBe(400);
        expect(json.error).toMatchObject({ code: "validation_failed", message: `Name ${REFUSAL}.` });
      }
    }
    expect(await endpointNames()).toEqual(before);
    // Well-formed text beyond ASCII (a surrogate pair, an emoji) is still a name.
    const renamed = await api("PATCH", `/endpoints/${endpoint.id}`, { name: "Orders \u{1F680} é" });
    expect(renamed.status).toBe(200);
    expect(await endpointNames()).toContain("Orders \u{1F680} é");
  });

  it("answers 400 for a handshake token, a signing secret or a signature prefix with an unpaired surrogate", async () => {
    const cases: Array<[unknown, string]> = [
      [{ handshake: { provider: "meta", token: LONE_SURROGATE } }, `Token ${REFUSAL}.`],
      [{ verification: { scheme: "stripe", secret: LONE_SURROGATE } }, `Secret ${REFUSAL}.`],
      [{ verification: { scheme: "hmac-sha256", secret: "a-long-enough-secret", header: "X-Signature", prefix: LONE_SURROGATE } }, `Prefix ${REFUSAL}.`],
    ];
    for (const [settings, message] of cases) {
      for (const [method, path] of [["POST", "/endpoints"], ["PATCH", `/endpoints/${endpoint.id}`]] as const) {
        const body = method === "POST" ? { name: "Signed", ...(settings as object) } : settings;
        const { status, json } = await api(method, path, body);
        expect(status, `${method} ${JSON.stringify(settings)}`).toBe(400);
        expect(json.error).toMatchObject({ code: "validation_failed", message });
      }
    }
  });
});

describe("tRPC", () => {
  it.each([
    ["search", "Search"],
    ["source", "Source"],
    ["eventType", "Event type"],
  ])("events.list answers BAD_REQUEST for %s with a NUL or an unpaired surrogate", async (field, label) => {
    for (const value of [NUL, LONE_SURROGATE]) expectBadRequest(await owner.query("events.list", { [field]: value }), `${label} ${REFUSAL}.`);
    expect(data(await owner.query("events.list", { [field]: "order" }))).toMatchObject({ events: expect.any(Array) });
  });

  it("events.live refuses such a search before streaming, instead of failing at the first event", async () => {
    const input = encodeURIComponent(JSON.stringify({ json: { search: NUL } }));
    const stream = await openSse(`${t.rehook.url}/trpc/events.live?input=${input}`, { cookie: owner.cookie! });
    streams.push(stream);
    // An event arriving is what made the old stream query the database with the search.
    await fetch(`${t.rehook.url}/api/webhook/${endpoint.slug}`, { method: "POST", body: "{}" });
    await waitFor(() => stream.messages.some((m) => m.event === "serialized-error"), "the stream's error");
    const error = JSON.parse(stream.messages.find((m) => m.event === "serialized-error")!.data) as { json: { message: string; data: { code: string } } };
    expect(error.json).toMatchObject({ message: `Search ${REFUSAL}.`, data: { code: "BAD_REQUEST" } });
  });

  it("endpoint names, API key names and bulk replay URLs answer BAD_REQUEST, and nothing is stored", async () => {
    const before = await endpointNames();
    for (const value of [NUL, LONE_SURROGATE]) {
      expectBadRequest(await owner.mutate("endpoints.create", { name: value }), `Name ${REFUSAL}.`);
      expectBadRequest(await owner.mutate("endpoints.update", { id: endpoint.id, name: value }), `Name ${REFUSAL}.`);
      expectBadRequest(await owner.mutate("apiKeys.create", { name: value }), `The name ${REFUSAL}.`);
      expectBadRequest(await owner.mutate("endpoints.update", { id: endpoint.id, handshake: { provider: "slack", token: `${LONE_SURROGATE}-token` } }), `Token ${REFUSAL}.`);
      expectBadRequest(await owner.mutate("replays.startBulk", { endpointId: endpoint.id, environment: "custom", customUrl: `http://127.0.0.1:9/${value}` }), `Custom URL ${REFUSAL}.`);
    }
    expect(await endpointNames()).toEqual(before);
    const keys = await t.db.query<{ name: string }>("select name from api_keys");
    expect(keys.map((row) => row.name)).toEqual(["tests"]);
    expect(await t.db.query("select id from replay_jobs")).toEqual([]);
  });
});

describe("the dashboard", () => {
  it.each([
    ["q", "Search"],
    ["source", "Source"],
    ["eventType", "Event type"],
  ])("the Activity page with %s=<NUL> in its URL answers 400 with the reason, not a 500 page", async (parameter, label) => {
    const page = await owner.get(`/events?${parameter}=a%00b`);
    expect(page.status).toBe(400);
    const html = await page.text();
    expect(html).toContain(`${label} must not contain NUL characters or unpaired surrogates`);
    expect(html).not.toContain("Something went wrong");
  });

  it("the Activity page cuts a long search without splitting a surrogate pair (the server would refuse half of one)", async () => {
    // 199 ASCII characters, then an emoji: its first half is the 200th UTF-16 unit.
    const page = await owner.get(`/events?q=${"x".repeat(199)}${encodeURIComponent("\u{1F680}")}`);
    expect(page.status).toBe(200);
  });

  it("the session export (the Activity page's Export link) answers 400 JSON for such a filter", async () => {
    for (const parameter of ["q", "source", "event_type"]) {
      const response = await owner.get(`/api/events/export?format=ndjson&${parameter}=a%00b`);
      expect(response.status, parameter).toBe(400);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe("validation_failed");
    }
  });
});
