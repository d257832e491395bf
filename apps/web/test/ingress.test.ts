import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { DashboardClient } from "./dashboard-client.js";
import { startTestServer, type TestServer } from "./test-server.js";

// Ingress control end to end on a real server: what senders get back (custom responses,
// delays, provider handshakes) and signature checks at capture time, through the public API.

let t: TestServer;
let key: string;

beforeAll(async () => {
  // A small pool: held answers must not hold connections (see "delays").
  t = await startTestServer({ DATABASE_POOL_SIZE: "3", API_RATE_LIMIT_PER_MINUTE: "1000" });
  const client = new DashboardClient(t.rehook.url);
  await client.postForm("/signup", { email: "ingress@example.com", password: "a long enough password" });
  key = ((await client.mutate("apiKeys.create", { name: "tests" })).body.result!.data.json as { key: string }).key;
});
afterAll(() => t.close());

async function api(method: string, path: string, body?: unknown) {
  const response = await fetch(`${t.rehook.url}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, text, json: text ? (JSON.parse(text) as Record<string, any>) : undefined };
}

async function newEndpoint(name: string, settings: Record<string, unknown> = {}): Promise<{ id: string; slug: string; url: string }> {
  const created = await api("POST", "/endpoints", { name, ...settings });
  expect(created.status, created.text).toBe(201);
  return { id: created.json!.id, slug: created.json!.slug, url: created.json!.webhook_url };
}

function send(url: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}) {
  return fetch(url, { method: init.method ?? "POST", headers: { "content-type": "application/json", ...init.headers }, ...(init.body === undefined ? {} : { body: init.body }) });
}

async function eventsOf(endpointId: string, query = ""): Promise<Array<{ id: string; signature: string | null }>> {
  const page = await api("GET", `/events?endpoint_id=${endpointId}&limit=100${query}`);
  expect(page.status, page.text).toBe(200);
  return page.json!.data;
}

const githubSignature = (secret: string, body: string) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

describe("custom responses", () => {
  it("answer with the endpoint's status, headers and body, the event id filled in, after the event is stored", async () => {
    const endpoint = await newEndpoint("Custom", {
      response: { status: 202, headers: { "X-Event": "evt-{{event_id}}", "Content-Type": "text/plain" }, body: "queued {{ event_id }}" },
    });
    const answer = await send(endpoint.url, { body: '{"a":1}' });
    const text = await answer.text();
    expect(answer.status).toBe(202);
    const eventId = /^queued ([0-9a-f-]{36})$/.exec(text)?.[1];
    expect(eventId).toBeDefined();
    expect(answer.headers.get("x-event")).toBe(`evt-${eventId}`);
    expect(answer.headers.get("content-type")).toBe("text/plain");
    expect((await api("GET", `/events/${eventId}`)).status).toBe(200);
    // The view shows the settings as saved.
    expect((await api("GET", `/endpoints/${endpoint.id}`)).json!.response).toEqual({
      status: 202,
      headers: { "X-Event": "evt-{{event_id}}", "Content-Type": "text/plain" },
      body: "queued {{ event_id }}",
      delay_ms: 0,
    });
  });

  it("sends a JSON body as JSON when no content type is set, and goes back to the default when cleared", async () => {
    const endpoint = await newEndpoint("Json answer", { response: { status: 500, body: '{"ok":false}' } });
    const failing = await send(endpoint.url, { body: "{}" });
    expect(failing.status).toBe(500);
    expect(failing.headers.get("content-type")).toBe("application/json");
    expect(await failing.json()).toEqual({ ok: false });
    expect((await eventsOf(endpoint.id)).length).toBe(1);

    expect((await api("PATCH", `/endpoints/${endpoint.id}`, { response: null })).json!.response).toBeNull();
    const plain = await send(endpoint.url, { body: "{}" });
    expect(plain.status).toBe(200);
    expect(await plain.json()).toMatchObject({ received: true });
  });

  it.each([
    ["a status over 599", { status: 700 }, /status must be a whole number from 200 to 599/i],
    ["a status under 200", { status: 199 }, /status must be a whole number from 200 to 599/i],
    ["a delay over 30 s", { status: 200, delay_ms: 30_001 }, /delay_ms must be a whole number of milliseconds from 0 to 30000/i],
    ["a header value with CR/LF", { status: 200, headers: { "X-Split": "a\r\nSet-Cookie: x=1" } }, /line break or control character/],
    ["a header name with a space", { status: 200, headers: { "Bad Name": "x" } }, /header name "Bad Name" is invalid/],
    ["Content-Length", { status: 200, headers: { "Content-Length": "5" } }, /set by the server/],
    ["a body on a 204", { status: 204, body: "not allowed" }, /a 204 response carries no body/i],
    ["a body over 64 KiB", { status: 200, body: "x".repeat(64 * 1024 + 1) }, /body must be at most 65536 bytes/i],
  ])("refuses %s with 400", async (_case, response, message) => {
    const endpoint = await newEndpoint("Refusals");
    const refused = await api("PATCH", `/endpoints/${endpoint.id}`, { response });
    expect(refused.status).toBe(400);
    expect(refused.json!.error.code).toBe("validation_failed");
    expect(refused.json!.error.message).toMatch(message);
    expect((await api("GET", `/endpoints/${endpoint.id}`)).json!.response).toBeNull();
  });
});

describe("delays", () => {
  it("hold the answer, not a database connection: the event is listed before the answer comes", async () => {
    const delay = 1_500;
    const slow = await newEndpoint("Slow", { response: { status: 200, body: "late", delay_ms: delay } });
    const quick = await newEndpoint("Quick");
    const started = performance.now();
    // More held answers than the pool has connections (3).
    const held = Array.from({ length: 8 }, () => send(slow.url, { body: "{}" }).then(async (answer) => ({ status: answer.status, body: await answer.text(), at: performance.now() })));
    await waitFor(async () => (await eventsOf(slow.id)).length === 8, "the held events to be listed", 10_000);
    const listedAt = performance.now();
    // Meanwhile another endpoint is captured and answered at once.
    const other = await send(quick.url, { body: "{}" });
    expect(other.status).toBe(200);
    const answers = await Promise.all(held);
    expect(answers.every((answer) => answer.status === 200 && answer.body === "late")).toBe(true);
    for (const answer of answers) expect(answer.at - started).toBeGreaterThanOrEqual(delay - 5);
    expect(Math.min(...answers.map((answer) => answer.at))).toBeGreaterThan(listedAt);
  });
});

describe("handshakes", () => {
  it("Slack: answers url_verification with its challenge and stores the request", async () => {
    const endpoint = await newEndpoint("Slack", { handshake: { provider: "slack" } });
    const answer = await send(endpoint.url, { body: JSON.stringify({ token: "Jhj5dZrVaK7ZwHHjRyZWjbDl", challenge: "3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P", type: "url_verification" }) });
    expect(answer.status).toBe(200);
    expect(await answer.text()).toBe("3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P");
    expect((await eventsOf(endpoint.id)).length).toBe(1);
    // Other events get the usual answer.
    const event = await send(endpoint.url, { body: JSON.stringify({ type: "event_callback", event: { type: "app_mention" } }) });
    expect(await event.json()).toMatchObject({ received: true });
  });

  it("Slack: with a verification token, a different token is refused with 403", async () => {
    const endpoint = await newEndpoint("Slack token", { handshake: { provider: "slack", token: "Jhj5dZrVaK7ZwHHjRyZWjbDl" } });
    const wrong = await send(endpoint.url, { body: JSON.stringify({ token: "nope", challenge: "abc", type: "url_verification" }) });
    expect(wrong.status).toBe(403);
    const right = await send(endpoint.url, { body: JSON.stringify({ token: "Jhj5dZrVaK7ZwHHjRyZWjbDl", challenge: "abc", type: "url_verification" }) });
    expect(await right.text()).toBe("abc");
  });

  it("Meta: answers hub.challenge only for the right verify token, and stores both requests", async () => {
    const endpoint = await newEndpoint("Meta", { handshake: { provider: "meta", token: "meatyhamhock-verify" } });
    const view = await api("GET", `/endpoints/${endpoint.id}`);
    expect(view.json!.handshake).toEqual({ provider: "meta", token: { set: true, last4: "rify" } });
    expect(view.text).not.toContain("meatyhamhock");
    const right = await fetch(`${endpoint.url}?hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=meatyhamhock-verify`);
    expect(right.status).toBe(200);
    expect(await right.text()).toBe("1158201444");
    const wrong = await fetch(`${endpoint.url}?hub.mode=subscribe&hub.challenge=1158201444&hub.verify_token=guess`);
    expect(wrong.status).toBe(403);
    expect((await wrong.json()).error.code).toBe("forbidden");
    expect((await eventsOf(endpoint.id)).length).toBe(2);
  });

  it("Zoom: answers endpoint.url_validation with the plain token and its HMAC-SHA256 under the secret token", async () => {
    const endpoint = await newEndpoint("Zoom", { handshake: { provider: "zoom", token: "zoom-secret-token-1" } });
    const answer = await send(endpoint.url, { body: JSON.stringify({ payload: { plainToken: "qgg8vlvZRS6UYooatFL8Aw" }, event_ts: 1654503849680, event: "endpoint.url_validation" }) });
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ plainToken: "qgg8vlvZRS6UYooatFL8Aw", encryptedToken: createHmac("sha256", "zoom-secret-token-1").update("qgg8vlvZRS6UYooatFL8Aw").digest("hex") });
    expect((await eventsOf(endpoint.id)).length).toBe(1);
  });

  it("needs a token for Meta and Zoom, and keeps the saved one when a change leaves it out", async () => {
    const refused = await api("POST", "/endpoints", { name: "No token", handshake: { provider: "zoom" } });
    expect(refused.status).toBe(400);
    expect(refused.json!.error.message).toMatch(/secret token/);
    const endpoint = await newEndpoint("Keeps", { handshake: { provider: "meta", token: "first-verify-token" } });
    const kept = await api("PATCH", `/endpoints/${endpoint.id}`, { handshake: { provider: "meta" } });
    expect(kept.json!.handshake.token.last4).toBe("oken");
    const answer = await fetch(`${endpoint.url}?hub.mode=subscribe&hub.challenge=42&hub.verify_token=first-verify-token`);
    expect(await answer.text()).toBe("42");
  });
});

describe("signature verification", () => {
  const secret = "It's a Secret to Everybody";

  it("records valid, invalid and missing signatures, filterable, and never shows the secret", async () => {
    const endpoint = await newEndpoint("GitHub", { verification: { scheme: "github", secret } });
    const body = '{"action":"opened"}';
    const valid = await send(endpoint.url, { body, headers: { "X-Hub-Signature-256": githubSignature(secret, body) } });
    const tampered = await send(endpoint.url, { body: '{"action":"closed"}', headers: { "X-Hub-Signature-256": githubSignature(secret, body) } });
    const missing = await send(endpoint.url, { body });
    expect([valid.status, tampered.status, missing.status]).toEqual([200, 200, 200]);
    const ids = await Promise.all([valid, tampered, missing].map(async (answer) => ((await answer.json()) as { eventId: string }).eventId));

    const listed = await eventsOf(endpoint.id);
    expect(Object.fromEntries(listed.map((event) => [event.id, event.signature]))).toEqual({ [ids[0]!]: "valid", [ids[1]!]: "invalid", [ids[2]!]: "missing" });
    expect((await eventsOf(endpoint.id, "&signature=invalid")).map((event) => event.id)).toEqual([ids[1]]);
    const invalidPage = await api("GET", `/events?endpoint_id=${endpoint.id}&signature=invalid`);
    expect(invalidPage.json!.meta.total).toBe(1);
    expect((await api("GET", `/events/${ids[0]}`)).json!.signature).toBe("valid");

    const view = await api("GET", `/endpoints/${endpoint.id}`);
    expect(view.json!.verification).toEqual({ scheme: "github", reject_invalid: false, secret: { set: true, last4: "body" } });
    expect(view.text).not.toContain(secret);
    expect((await api("GET", "/endpoints?limit=100")).text).not.toContain(secret);
  });

  it("leaves events of endpoints without verification unmarked", async () => {
    const endpoint = await newEndpoint("Plain");
    await send(endpoint.url, { body: "{}", headers: { "X-Hub-Signature-256": "sha256=00" } });
    expect((await eventsOf(endpoint.id))[0]!.signature).toBeNull();
    const bad = await api("GET", "/events?signature=forged");
    expect(bad.status).toBe(400);
  });

  it("with reject_invalid: 401 and nothing stored for invalid or missing signatures", async () => {
    const endpoint = await newEndpoint("Strict", { verification: { scheme: "github", secret, reject_invalid: true } });
    const body = '{"zen":"Keep it logically awesome."}';
    const invalid = await send(endpoint.url, { body, headers: { "X-Hub-Signature-256": githubSignature("wrong secret", body) } });
    expect(invalid.status).toBe(401);
    expect((await invalid.json()).error).toMatchObject({ code: "unauthorized" });
    const missing = await send(endpoint.url, { body });
    expect(missing.status).toBe(401);
    expect(await eventsOf(endpoint.id)).toEqual([]);
    const valid = await send(endpoint.url, { body, headers: { "X-Hub-Signature-256": githubSignature(secret, body) } });
    expect(valid.status).toBe(200);
    expect((await eventsOf(endpoint.id)).map((event) => event.signature)).toEqual(["valid"]);
  });

  it("applies a changed rule to the very next capture, keeps the secret when left out, and needs one for a new scheme", async () => {
    const endpoint = await newEndpoint("Changing", { verification: { scheme: "github", secret } });
    const body = "{}";
    await send(endpoint.url, { body, headers: { "X-Hub-Signature-256": githubSignature(secret, body) } });
    // Reject from now on, same secret (left out).
    const changed = await api("PATCH", `/endpoints/${endpoint.id}`, { verification: { scheme: "github", reject_invalid: true } });
    expect(changed.json!.verification).toMatchObject({ reject_invalid: true, secret: { last4: "body" } });
    expect((await send(endpoint.url, { body })).status).toBe(401);
    expect((await send(endpoint.url, { body, headers: { "X-Hub-Signature-256": githubSignature(secret, body) } })).status).toBe(200);
    // A new secret: the old signature no longer verifies.
    await api("PATCH", `/endpoints/${endpoint.id}`, { verification: { scheme: "github", secret: "a brand new secret", reject_invalid: true } });
    expect((await send(endpoint.url, { body, headers: { "X-Hub-Signature-256": githubSignature(secret, body) } })).status).toBe(401);
    expect((await send(endpoint.url, { body, headers: { "X-Hub-Signature-256": githubSignature("a brand new secret", body) } })).status).toBe(200);
    // Off again: anything is stored, unmarked.
    await api("PATCH", `/endpoints/${endpoint.id}`, { verification: null });
    expect((await send(endpoint.url, { body })).status).toBe(200);
    expect((await eventsOf(endpoint.id)).map((event) => event.signature)).toEqual([null, "valid", "valid"]);

    const newScheme = await api("PATCH", `/endpoints/${endpoint.id}`, { verification: { scheme: "stripe" } });
    expect(newScheme.status).toBe(400);
    expect(newScheme.json!.error.message).toMatch(/needs the secret/);
    const generic = await api("PATCH", `/endpoints/${endpoint.id}`, { verification: { scheme: "hmac-sha256", secret } });
    expect(generic.status).toBe(400);
    expect(generic.json!.error.message).toMatch(/needs the header/);
    const misplaced = await api("PATCH", `/endpoints/${endpoint.id}`, { verification: { scheme: "github", secret, header: "X-Sig" } });
    expect(misplaced.status).toBe(400);
  });

  it("lets Meta's unsigned subscription check through reject_invalid only with the right verify token", async () => {
    const endpoint = await newEndpoint("Meta strict", {
      handshake: { provider: "meta", token: "verify-me-please" },
      verification: { scheme: "hmac-sha256", secret: "app-secret", header: "X-Hub-Signature-256", prefix: "sha256=", reject_invalid: true },
    });
    const right = await fetch(`${endpoint.url}?hub.mode=subscribe&hub.challenge=7&hub.verify_token=verify-me-please`);
    expect(right.status).toBe(200);
    expect(await right.text()).toBe("7");
    const wrong = await fetch(`${endpoint.url}?hub.mode=subscribe&hub.challenge=7&hub.verify_token=nope`);
    expect(wrong.status).toBe(401);
    const body = '{"object":"page"}';
    const signed = await send(endpoint.url, { body, headers: { "X-Hub-Signature-256": githubSignature("app-secret", body) } });
    expect(signed.status).toBe(200);
    expect((await eventsOf(endpoint.id)).map((event) => event.signature)).toEqual(["valid", "missing"]);
  });
});
