import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DashboardClient } from "./dashboard-client.js";
import { head, rawRequest } from "./raw-http.js";
import { startTestServer, type TestServer } from "./test-server.js";

let t: TestServer;
let alice: DashboardClient;
let bob: DashboardClient;
let aliceEndpoint: { id: string; slug: string };
let aliceEventId: string;

async function signedUp(email: string): Promise<DashboardClient> {
  const client = new DashboardClient(t.rehook.url);
  const response = await client.postForm("/signup", { email, password: "a long enough password" });
  expect(response.status).toBe(303);
  return client;
}

async function capture(slug: string, body: string, headers: Array<[string, string]> = [["Content-Type", "application/json"]]): Promise<string> {
  const bytes = Buffer.from(body);
  const response = await rawRequest(t.rehook.url, [head("POST", `/api/webhook/${slug}`, [...headers, ["Content-Length", String(bytes.length)]]), bytes]);
  return JSON.parse(response.body).eventId as string;
}

const data = <T>(envelope: { body: { result?: { data: { json: unknown } } } }) => envelope.body.result!.data.json as T;

beforeAll(async () => {
  t = await startTestServer({ CHAT_HOOKS_BASE: "https://hooks.slack.com" });
  alice = await signedUp("alice@example.com");
  bob = await signedUp("bob@example.com");
  aliceEndpoint = data(await alice.mutate("endpoints.create", { name: "Alice orders" }));
  aliceEventId = await capture(aliceEndpoint.slug, '{"type":"order.created"}');
});
afterAll(() => t.close());

describe("tRPC procedures", () => {
  it("refuses a mutation sent as text/plain with a valid cookie, and one from a foreign Origin", async () => {
    const plain = await alice.mutate("endpoints.create", { name: "sneaky" }, { "content-type": "text/plain" });
    expect(plain.status).toBe(415);
    const foreign = await alice.mutate("endpoints.create", { name: "sneaky" }, { origin: "https://evil.example" });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error!.json.message).toBe("This cross-site request was refused. Send it from the dashboard itself.");
    const names = data<Array<{ name: string }>>(await alice.query("endpoints.list")).map((e) => e.name);
    expect(names).not.toContain("sneaky");
  });

  it("answers 401 without a session", async () => {
    const anonymous = new DashboardClient(t.rehook.url);
    const response = await anonymous.query("endpoints.list");
    expect(response.status).toBe(401);
  });

  it("answers NOT_FOUND for another user's endpoint and event on every procedure, exactly like a missing one", async () => {
    const missing = "0192f0e0-0000-7000-8000-000000000000";
    const attempts: Array<[string, (id: string) => Promise<{ status: number; body: { error?: { json: { message: string } } } }>]> = [
      ["endpoints.get", (id) => bob.query("endpoints.get", { id })],
      ["endpoints.update", (id) => bob.mutate("endpoints.update", { id, name: "taken over" })],
      ["endpoints.secret", (id) => bob.query("endpoints.secret", { id })],
      ["endpoints.rotateSecret", (id) => bob.mutate("endpoints.rotateSecret", { id })],
      ["endpoints.delete", (id) => bob.mutate("endpoints.delete", { id })],
    ];
    for (const [name, call] of attempts) {
      const foreign = await call(aliceEndpoint.id);
      const absent = await call(missing);
      expect(foreign.status, name).toBe(404);
      expect(absent.status, name).toBe(404);
      expect(foreign.body.error!.json.message.replace(aliceEndpoint.id, "ID"), name).toBe(absent.body.error!.json.message.replace(missing, "ID"));
    }
    const foreignEvent = await bob.query("events.get", { id: aliceEventId });
    expect(foreignEvent.status).toBe(404);
    expect((await bob.query("events.get", { id: missing })).status).toBe(404);
    expect(data<{ events: unknown[] }>(await bob.query("events.list", { endpointId: aliceEndpoint.id })).events).toEqual([]);
    // Alice's endpoint is untouched.
    expect(data<{ name: string }>(await alice.query("endpoints.get", { id: aliceEndpoint.id })).name).toBe("Alice orders");
  });

  it("pages through events newest first with a keyset cursor, filtered by endpoint and status", async () => {
    const carol = await signedUp("carol@example.com");
    const endpoint = data<{ id: string; slug: string }>(await carol.mutate("endpoints.create", { name: "pager" }));
    const ids: string[] = [];
    for (let i = 0; i < 7; i += 1) ids.push(await capture(endpoint.slug, JSON.stringify({ type: `page.${i}` })));
    const seen: string[] = [];
    let before: string | undefined;
    for (;;) {
      const page = data<{ events: Array<{ id: string; status: string }>; nextCursor: string | null }>(
        await carol.query("events.list", { endpointId: endpoint.id, status: "captured", limit: 3, ...(before ? { before } : {}) }),
      );
      seen.push(...page.events.map((e) => e.id));
      if (!page.nextCursor) break;
      before = page.nextCursor;
    }
    expect(seen).toEqual([...ids].reverse());
    const none = data<{ events: unknown[] }>(await carol.query("events.list", { status: "failed" }));
    expect(none.events).toEqual([]);
  });

  it("shows an event's payload, headers in order and a curl command", async () => {
    const sent: Array<[string, string]> = [["Content-Type", "application/json"], ["X-Dup", "1"], ["Stripe-Signature", "t=1,v1=a"], ["X-Dup", "2"]];
    const eventId = await capture(aliceEndpoint.slug, '{"type":"order.created"}', sent);
    const event = data<{ payload: { kind: string; pretty: string }; headers: Array<[string, string]>; curl: string; response: unknown }>(
      await alice.query("events.get", { id: eventId }),
    );
    expect(event.payload).toMatchObject({ kind: "json", pretty: '{\n  "type": "order.created"\n}' });
    expect(event.headers.filter(([name]) => !["host", "content-length", "connection"].includes(name.toLowerCase()))).toEqual(sent);
    expect(event.curl).toContain(`/api/webhook/${aliceEndpoint.slug}`);
    expect(event.curl).toContain("--data-binary '{\"type\":\"order.created\"}'");
    expect(event.response).toBeNull();
  });

  it("issues an API key once, lists it by prefix only, and revokes it", async () => {
    const created = data<{ key: string; apiKey: { id: string; prefix: string } }>(await alice.mutate("apiKeys.create", { name: "ci" }));
    expect(created.key).toMatch(/^pk_live_[0-9A-Za-z]{32,}$/);
    const stored = await t.db.query<{ key_hash: Buffer }>("select key_hash from api_keys where id = $1", [created.apiKey.id]);
    expect(stored[0]!.key_hash.toString("hex")).not.toContain(Buffer.from(created.key).toString("hex"));
    const listed = data<Array<{ id: string; prefix: string; revoked_at: string | null }>>(await alice.query("apiKeys.list"));
    expect(JSON.stringify(listed)).not.toContain(created.key);
    expect(listed.find((k) => k.id === created.apiKey.id)).toMatchObject({ prefix: created.key.slice(0, 12), revoked_at: null });
    expect((await bob.mutate("apiKeys.revoke", { id: created.apiKey.id })).status).toBe(404);
    expect((await alice.mutate("apiKeys.revoke", { id: created.apiKey.id })).status).toBe(200);
    const after = data<Array<{ id: string; revoked_at: string | null }>>(await alice.query("apiKeys.list"));
    expect(after.find((k) => k.id === created.apiKey.id)!.revoked_at).not.toBeNull();
  });

  it("reveals and regenerates an endpoint secret", async () => {
    const before = data<{ secret: string }>(await alice.query("endpoints.secret", { id: aliceEndpoint.id })).secret;
    expect(before).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const rotated = data<{ secret: string }>(await alice.mutate("endpoints.rotateSecret", { id: aliceEndpoint.id })).secret;
    expect(rotated).not.toBe(before);
    expect(data<{ secret: string }>(await alice.query("endpoints.secret", { id: aliceEndpoint.id })).secret).toBe(rotated);
  });

  it("saves notification settings and refuses a hook URL it cannot use, saying what to fix", async () => {
    const quoted = await alice.mutate("notifications.save", { enabled: true, webhookUrl: '"https://hooks.slack.com/services/T/B/X"', triggers: ["failed"] });
    expect(quoted.status).toBe(400);
    expect(quoted.body.error!.json.message).toMatch(/quotes/);
    const elsewhere = await alice.mutate("notifications.save", { enabled: true, webhookUrl: "https://evil.example/services/x", triggers: ["failed"] });
    expect(elsewhere.status).toBe(400);
    expect(elsewhere.body.error!.json.message).toContain("https://hooks.slack.com");
    const saved = await alice.mutate("notifications.save", { enabled: true, webhookUrl: "https://hooks.slack.com/services/T/B/X", triggers: ["delivered", "failed"] });
    expect(saved.status).toBe(200);
    expect(data(await alice.query("notifications.get"))).toMatchObject({ enabled: true, webhook_url: "https://hooks.slack.com/services/T/B/X", triggers: ["failed", "delivered"] });
    expect(data(await bob.query("notifications.get"))).toMatchObject({ enabled: false, webhook_url: null });
  });

  it("refuses a destination on an internal address with the reason", async () => {
    const refused = await alice.mutate("endpoints.create", { name: "internal", destinationUrl: "http://169.254.169.254/latest/meta-data/" });
    expect(refused.status).toBe(400);
    expect(refused.body.error!.json.message).toBe("destination URL refused: blocked: cloud metadata address");
  });
});
