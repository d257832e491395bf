import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DashboardClient, type TrpcEnvelope } from "./dashboard-client.js";
import { startTestServer, type TestServer } from "./test-server.js";

// Text PostgreSQL refuses (NUL) or cannot keep as sent (an unpaired surrogate) is answered 400
// with the field named on every HTTP surface (the public API, the dashboard's pages and export),
// never a 500 from the database driver.

const NUL = "a\u0000b";
const LONE_SURROGATE = "a\ud800b";
const REFUSAL = "must not contain NUL characters or unpaired surrogates (U+D800–U+DFFF)";

let t: TestServer;
let owner: DashboardClient;
let key: string;
let endpoint: { id: string; slug: string };

beforeAll(async () => {
  t = await startTestServer({ ALLOW_PRIVATE_DESTINATIONS: "true" });
  owner = new DashboardClient(t.rehook.url);
  expect((await owner.postForm("/signup", { email: "text-inputs@example.com", password: "a long enough password" })).status).toBe(303);
  key = (data(await owner.mutate("apiKeys.create", { name: "tests" })) as { key: string }).key;
  endpoint = data(await owner.mutate("endpoints.create", { name: "Orders" })) as { id: string; slug: string };
  const captured = await fetch(`${t.rehook.url}/api/webhook/${endpoint.slug}`, { method: "POST", headers: { "content-type": "application/json" }, body: '{"type":"order.created"}' });
  expect(captured.status).toBe(200);
});
afterAll(() => t.close());

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

async function endpointNames(): Promise<string[]> {
  return (await t.db.query<{ name: string }>("select name from endpoints where team_id = (select teams.id from teams join users on users.id = teams.personal_of_id where users.email = 'text-inputs@example.com') order by name")).map((row) => row.name);
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

// The procedures' refusals (events.list, events.live, endpoints, apiKeys, replays.startBulk) are
// tested through createCaller in packages/api/test.

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
