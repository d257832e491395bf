import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { DashboardClient } from "./dashboard-client.js";
import { head, rawRequest } from "./raw-http.js";
import { startTestServer, type TestServer } from "./test-server.js";

let t: TestServer;
let sink: Sink;
let owner: DashboardClient;
let key: string;
let endpoint: { id: string; slug: string };
let eventId: string;

const original = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x31, 0x7d, 0x00, 0xff]); // JSON-ish, then NUL and invalid UTF-8
const capturedHeaders: Array<[string, string]> = [
  ["Content-Type", "application/json"],
  ["X-Dup", "1"],
  ["X-Dup", "2"],
];

/** What arrived, minus what the sending connection sets itself. */
function pairs(raw: string[]): Array<[string, string]> {
  const list: Array<[string, string]> = [];
  for (let i = 0; i < raw.length; i += 2) list.push([raw[i]!, raw[i + 1]!]);
  return list.filter(([name]) => !["host", "connection"].includes(name.toLowerCase()));
}

async function api(path: string, body: unknown): Promise<{ status: number; json: Record<string, any> }> {
  const response = await fetch(`${t.rehook.url}/api/v1${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, any> };
}

const replay = (overrides?: unknown) => api(`/events/${eventId}/replay`, { destination_url: `http://127.0.0.1:${sink.port}/edited`, ...(overrides === undefined ? {} : { overrides }) });

async function capture(slug: string, body: Buffer, headers: Array<[string, string]>): Promise<string> {
  const response = await rawRequest(t.rehook.url, [head("POST", `/api/webhook/${slug}`, [...headers, ["Content-Length", String(body.length)]]), body]);
  expect(response.status).toBe(200);
  const id = JSON.parse(response.body).eventId as string;
  await waitFor(async () => (await t.db.query<{ status: string }>("select status from events where id = $1", [id]))[0]?.status === "delivered", `event ${id} delivered`);
  return id;
}

beforeAll(async () => {
  t = await startTestServer({ ALLOW_PRIVATE_DESTINATIONS: "true" });
  sink = await startSink((_req, res) => res.end("ok"));
  owner = new DashboardClient(t.rehook.url);
  expect((await owner.postForm("/signup", { email: "editor@example.com", password: "a long enough password" })).status).toBe(303);
  key = ((await owner.mutate("apiKeys.create", { name: "tests" })).body.result!.data.json as { key: string }).key;
  endpoint = (await owner.mutate("endpoints.create", { name: "edits", destinationUrl: `http://127.0.0.1:${sink.port}/in` })).body.result!.data.json as { id: string; slug: string };
  eventId = await capture(endpoint.slug, original, capturedHeaders);
});
afterAll(async () => {
  await t.close();
  await sink.close();
});

describe("edit-and-replay (POST /api/v1/events/{id}/replay with overrides)", () => {
  it("sends the edited method, the whole new header list and the text body; Content-Length from the bytes sent; the event unchanged", async () => {
    const text = '{"edited": "héllo"}';
    const headers: Array<[string, string]> = [
      ["Content-Type", "application/json; charset=utf-8"],
      ["X-Edited", "yes"],
      ["Content-Length", "999"],
      ["Connection", "close, X-Gone"],
      ["X-Gone", "hop"],
    ];
    const answer = await replay({ method: "PUT", headers, body: text });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ status: "delivered", modified: true });
    const got = sink.received.at(-1)!;
    expect(got.method).toBe("PUT");
    expect(got.body.equals(Buffer.from(text, "utf8"))).toBe(true);
    expect(pairs(got.rawHeaders)).toEqual([
      ["Content-Type", "application/json; charset=utf-8"],
      ["X-Edited", "yes"],
      ["content-length", String(Buffer.byteLength(text))],
    ]);
    const [row] = await t.db.query<{ request_method: string; request_headers: unknown; request_body: Buffer; modified: boolean }>(
      "select request_method, request_headers, request_body, modified from replay_attempts where id = $1",
      [answer.json.id],
    );
    expect(row).toEqual({ request_method: "PUT", request_headers: headers.slice(0, 2), request_body: Buffer.from(text, "utf8"), modified: true });
    const [event] = await t.db.query<{ method: string; body: Buffer; headers: unknown }>("select method, body, headers from events where id = $1", [eventId]);
    expect(event!.method).toBe("POST");
    expect(event!.body.equals(original)).toBe(true);
  });

  it("sends binary body_base64 bytes exactly, keeping the captured method and headers", async () => {
    const bytes = Buffer.from([0x00, 0xff, 0x10, 0x80, 0x0d, 0x0a]);
    const answer = await replay({ body_base64: bytes.toString("base64") });
    expect(answer.json).toMatchObject({ status: "delivered", modified: true });
    const got = sink.received.at(-1)!;
    expect(got.method).toBe("POST");
    expect(got.body.equals(bytes)).toBe(true);
    expect(pairs(got.rawHeaders)).toEqual([...capturedHeaders, ["content-length", String(bytes.length)]]);
  });

  it("a plain replay still sends the original bytes and answers modified: false", async () => {
    const answer = await replay();
    expect(answer.json).toMatchObject({ status: "delivered", modified: false });
    const got = sink.received.at(-1)!;
    expect(got.method).toBe("POST");
    expect(got.body.equals(original)).toBe(true);
    expect(pairs(got.rawHeaders)).toEqual([...capturedHeaders, ["content-length", String(original.length)]]);
    const [row] = await t.db.query<{ request_method: string; request_body: Buffer | null; modified: boolean }>("select request_method, request_body, modified from replay_attempts where id = $1", [answer.json.id]);
    expect(row).toEqual({ request_method: "POST", request_body: null, modified: false });
  });

  it("refuses CR, LF and NUL in header values, bad names, and body with body_base64, sending nothing", async () => {
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
    ];
    for (const [overrides, message] of cases) {
      const answer = await replay(overrides);
      expect(answer.status, JSON.stringify(overrides).slice(0, 80)).toBe(400);
      expect(answer.json.error.code).toBe("validation_failed");
      expect(answer.json.error.message).toMatch(message);
      expect(answer.json.error.message).toMatch(/^[A-Z].*\.$/);
    }
    expect(sink.received.length).toBe(before);
  });

  it("the session route takes the same overrides, and signing covers the edited body", async () => {
    await owner.mutate("endpoints.update", { id: endpoint.id, signRequests: true });
    const secret = ((await owner.query("endpoints.secret", { id: endpoint.id })).body.result!.data.json as { secret: string }).secret;
    const text = '{"signed":"edit"}';
    const response = await fetch(new URL(`/api/events/${eventId}/replay`, owner.baseUrl), {
      method: "POST",
      headers: { "content-type": "application/json", origin: owner.baseUrl, cookie: owner.cookie! },
      body: JSON.stringify({ environment: "original", overrides: { headers: [["Content-Type", "application/json"]], body: text } }),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ status: "delivered", modified: true });
    const got = sink.received.at(-1)!;
    expect(got.body.toString()).toBe(text);
    const value = (name: string) => pairs(got.rawHeaders).find(([n]) => n.toLowerCase() === name)![1];
    const signature = { "webhook-id": value("webhook-id"), "webhook-timestamp": value("webhook-timestamp"), "webhook-signature": value("webhook-signature") };
    expect(signature["webhook-id"]).toBe(eventId);
    expect(() => new Webhook(secret).verify(text, signature)).not.toThrow();

    const bad = await fetch(new URL(`/api/events/${eventId}/replay`, owner.baseUrl), {
      method: "POST",
      headers: { "content-type": "application/json", origin: owner.baseUrl, cookie: owner.cookie! },
      body: JSON.stringify({ environment: "original", overrides: { headers: [["X-A", "a\rb"]] } }),
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { code: string } }).error.code).toBe("validation_failed");
  });
});
