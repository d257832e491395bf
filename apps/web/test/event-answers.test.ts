import { createHmac } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DashboardClient } from "./dashboard-client.js";
import { startTestServer, type TestServer } from "./test-server.js";

// What an event records of its capture, end to end on a real server: the answer its sender
// got (GET /api/v1/events/{id} and the event page), why its signature is invalid, and where
// it came (the list items carry the endpoint, method and path).

let t: TestServer;
let owner: DashboardClient;
let key: string;

beforeAll(async () => {
  t = await startTestServer({ API_RATE_LIMIT_PER_MINUTE: "1000" });
  owner = new DashboardClient(t.rehook.url);
  await owner.postForm("/signup", { email: "answers@example.com", password: "a long enough password" });
  key = ((await owner.mutate("apiKeys.create", { name: "tests" })).body.result!.data.json as { key: string }).key;
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

async function newEndpoint(settings: Record<string, unknown>): Promise<{ id: string; url: string }> {
  const created = await api("POST", "/endpoints", { name: "Answers", ...settings });
  expect(created.status, created.text).toBe(201);
  return { id: created.json!.id, url: `${t.rehook.url}/api/webhook/${created.json!.slug}` };
}

async function onlyEventOf(endpointId: string): Promise<Record<string, any>> {
  const page = await api("GET", `/events?endpoint_id=${endpointId}`);
  expect(page.status, page.text).toBe(200);
  expect(page.json!.data).toHaveLength(1);
  return page.json!.data[0];
}

describe("what the sender was answered", () => {
  it("a custom response's status and delay, on GET /api/v1/events/{id} and on the event page", async () => {
    const endpoint = await newEndpoint({ response: { status: 202, body: "queued {{event_id}}", delay_ms: 300 } });
    const answer = await fetch(endpoint.url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(answer.status).toBe(202);
    const eventId = (await answer.text()).slice("queued ".length);

    const detail = await api("GET", `/events/${eventId}`);
    expect(detail.json!.sender_response).toEqual({ status: 202, delay_ms: 300 });
    const page = await owner.get(`/events/${eventId}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toMatch(/data-testid="sender-answer"[^>]*>Answered 202 after 300 ms</);
  });

  it("the default 200 at once, and a Meta handshake's 200 or 403", async () => {
    const endpoint = await newEndpoint({ handshake: { provider: "meta", token: "the-verify-token" } });
    const check = (token: string) => fetch(`${endpoint.url}?hub.mode=subscribe&hub.challenge=7&hub.verify_token=${token}`);
    expect((await check("the-verify-token")).status).toBe(200);
    expect((await check("a-guess")).status).toBe(403);
    const plain = await fetch(endpoint.url, { method: "POST", body: "{}" });
    expect(plain.status).toBe(200);
    const plainId = ((await plain.json()) as { eventId: string }).eventId;

    const listed = await api("GET", `/events?endpoint_id=${endpoint.id}`);
    const answers = await Promise.all(listed.json!.data.map(async (event: { id: string }) => (await api("GET", `/events/${event.id}`)).json!));
    expect(answers.map((event) => [event.query.includes("a-guess") ? "wrong" : event.id === plainId ? "plain" : "right", event.sender_response]).sort()).toEqual([
      ["plain", { status: 200, delay_ms: 0 }],
      ["right", { status: 200, delay_ms: 0 }],
      ["wrong", { status: 403, delay_ms: 0 }],
    ]);
  });
});

describe("list items", () => {
  it("carry endpoint_id, method and path", async () => {
    const endpoint = await newEndpoint({});
    expect((await fetch(`${endpoint.url}/orders/42?x=1`, { method: "PUT", body: "{}" })).status).toBe(200);
    expect(await onlyEventOf(endpoint.id)).toMatchObject({ endpoint_id: endpoint.id, method: "PUT", path: "/orders/42", signature: null, signature_reason: null });
  });
});

describe("why a signature is invalid", () => {
  it("says stale_timestamp for a Stripe signature signed an hour ago, in the API and the badge's tooltip", async () => {
    const secret = "whsec_event_answers";
    const endpoint = await newEndpoint({ verification: { scheme: "stripe", secret } });
    const body = '{"id":"evt_1"}';
    const signedAt = Math.floor(Date.now() / 1000) - 3600;
    const signature = createHmac("sha256", secret).update(`${signedAt}.${body}`).digest("hex");
    const answer = await fetch(endpoint.url, { method: "POST", headers: { "content-type": "application/json", "stripe-signature": `t=${signedAt},v1=${signature}` }, body });
    expect(answer.status).toBe(200);

    const listed = await onlyEventOf(endpoint.id);
    expect([listed.signature, listed.signature_reason]).toEqual(["invalid", "stale_timestamp"]);
    expect((await api("GET", `/events/${listed.id}`)).json!.signature_reason).toBe("stale_timestamp");
    const html = await (await owner.get(`/events/${listed.id}`)).text();
    const badge = /<span[^>]*data-testid="signature-badge"[^>]*>/.exec(html)?.[0] ?? "";
    expect(badge).toContain('data-signature-reason="stale_timestamp"');
    expect(badge).toContain("Signature invalid: The signed timestamp is more than 5 minutes from the server");
    expect(badge).not.toContain("secret");
  });
});
