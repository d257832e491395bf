import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DashboardClient, fetchWithHost } from "./dashboard-client.js";
import { startTestServer, type TestServer } from "./test-server.js";

// Capture URLs share the dashboard's origin unless CAPTURE_BASE_URL moves them: a tenant's
// custom response must never be active content there. Save-time refusals on every transport,
// the headers on every capture answer, old rows served inert, and CAPTURE_BASE_URL.

let t: TestServer;
let key: string;
let dashboard: DashboardClient;

beforeAll(async () => {
  t = await startTestServer({ API_RATE_LIMIT_PER_MINUTE: "10000" });
  dashboard = new DashboardClient(t.rehook.url);
  await dashboard.postForm("/signup", { email: "answers@example.com", password: "a long enough password" });
  key = ((await dashboard.mutate("apiKeys.create", { name: "tests" })).body.result!.data.json as { key: string }).key;
});
afterAll(() => t?.close());

async function api(method: string, path: string, body?: unknown) {
  const response = await fetch(`${t.rehook.url}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, text, json: text ? (JSON.parse(text) as Record<string, any>) : undefined };
}

async function newEndpoint(name: string, settings: Record<string, unknown> = {}) {
  const created = await api("POST", "/endpoints", { name, ...settings });
  expect(created.status, created.text).toBe(201);
  return { id: created.json!.id as string, slug: created.json!.slug as string, url: `${t.rehook.url}/api/webhook/${created.json!.slug}` };
}

function expectSecurityHeaders(response: Response) {
  expect(response.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
  expect(response.headers.get("x-content-type-options")).toBe("nosniff");
}

describe("saving a custom response", () => {
  const refusals: Array<[string, Record<string, unknown>, RegExp]> = [
    ...[
      "text/html",
      "text/html; charset=utf-8",
      "application/xhtml+xml",
      "image/svg+xml",
      "text/xml",
      "application/xml",
      "application/atom+xml",
      "text/xsl",
      "text/javascript",
      "application/javascript",
      "application/ecmascript",
      "multipart/x-mixed-replace; boundary=b",
      "application/pdf",
      "text/plain, text/html",
    ].map((type): [string, Record<string, unknown>, RegExp] => [`Content-Type ${type}`, { status: 200, headers: { "Content-Type": type } }, /^Headers: the Content-Type .*(is refused|must be one media type)/]),
    ...["Set-Cookie", "Set-Cookie2", "Clear-Site-Data", "Service-Worker-Allowed", "Refresh", "Link", "Content-Security-Policy", "Content-Security-Policy-Report-Only", "X-Content-Type-Options", "Strict-Transport-Security", "NEL", "Report-To", "WWW-Authenticate", "Content-Disposition"].map(
      (name): [string, Record<string, unknown>, RegExp] => [name, { status: 200, headers: { [name]: "x=1" } }, new RegExp(`^Headers: the response header ${name} is refused because`)],
    ),
    ["an off-site Location", { status: 302, headers: { Location: "https://evil.example/" } }, /^Headers: the response header Location is refused because it may only be a path under \/api\/webhook\//],
    ["a Location that climbs out of the capture URLs", { status: 302, headers: { Location: "/api/webhook/x/%2e%2e/%2e%2e/%2e%2e/login" } }, /Location is refused/],
    ["an emoji in a header value", { status: 200, headers: { "X-Note": "done 🎉" } }, /^Headers: the value of the response header X-Note contains U\+1F389: header values may hold printable ASCII/],
    ["U+2028 in a header value", { status: 200, headers: { "X-Note": "a\u2028b" } }, /X-Note contains U\+2028/],
    ["Latin-1 in a header value", { status: 200, headers: { "X-Note": "café" } }, /X-Note contains U\+00E9/],
    ["a lone surrogate in a header value", { status: 200, headers: { "X-Note": "a\uD800b" } }, /X-Note contains U\+D800/],
    ["NUL in a header value", { status: 200, headers: { "X-Note": "a\u0000b" } }, /X-Note contains a line break or control character/],
    ["NUL in the body", { status: 200, body: "a\u0000b" }, /^Body must not contain NUL characters or unpaired surrogates/],
    ["a lone surrogate in the body", { status: 200, body: "a\uDC00b" }, /^Body must not contain NUL characters or unpaired surrogates/],
  ];

  it.each(refusals)("refuses %s with 400 validation_failed, the field named, and keeps the saved answer", async (_case, response, message) => {
    const endpoint = await newEndpoint("Refusals", { response: { status: 202, body: "kept" } });
    const refused = await api("PATCH", `/endpoints/${endpoint.id}`, { response });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.json!.error.code).toBe("validation_failed");
    expect(refused.json!.error.message).toMatch(message);
    expect((await api("GET", `/endpoints/${endpoint.id}`)).json!.response).toMatchObject({ status: 202, body: "kept" });
    // Creating with it is refused the same way.
    const created = await api("POST", "/endpoints", { name: "Refused at create", response });
    expect(created.status).toBe(400);
    expect(created.json!.error.message).toMatch(message);
  });

  it("refuses the same over tRPC (the dashboard's transport)", async () => {
    const endpoint = await newEndpoint("Over tRPC");
    for (const response of [{ status: 200, headers: { "Content-Type": "text/html" } }, { status: 200, headers: { "Set-Cookie": "a=1" } }, { status: 200, body: "a\u0000b" }]) {
      const refused = await dashboard.mutate("endpoints.update", { id: endpoint.id, response });
      expect(refused.status).toBe(400);
      expect(refused.body.error!.json.data.rehookCode).toBe("validation_failed");
    }
  });

  it("keeps data types, a Location to another capture URL and ASCII values", async () => {
    const endpoint = await newEndpoint("Allowed", {
      response: { status: 307, headers: { "Content-Type": "application/json; charset=utf-8", Location: "/api/webhook/elsewhere-k3x9q2ma/{{event_id}}", "X-Queue": "a\tb ~" }, body: '{"ok":"🎉"}' },
    });
    const answer = await fetch(endpoint.url, { method: "POST", body: "{}", redirect: "manual" });
    expect(answer.status).toBe(307);
    expect(answer.headers.get("location")).toMatch(/^\/api\/webhook\/elsewhere-k3x9q2ma\/[0-9a-f-]{36}$/);
    expect(answer.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(await answer.json()).toEqual({ ok: "🎉" });
  });
});

describe("every capture answer", () => {
  it("carries the sandbox policy and nosniff: custom, default, handshake and error answers", async () => {
    const custom = await newEndpoint("Custom", { response: { status: 202, headers: { "Content-Type": "text/plain" }, body: "<script>alert(1)</script>" } });
    const plain = await newEndpoint("Plain");
    const slack = await newEndpoint("Slack", { handshake: { provider: "slack" } });
    const answers = [
      await fetch(custom.url, { method: "POST", body: "{}" }),
      await fetch(plain.url, { method: "POST", body: "{}" }),
      await fetch(slack.url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ type: "url_verification", challenge: "<svg onload=alert(1)>" }) }),
      await fetch(`${t.rehook.url}/api/webhook/no-such-endpoint-k3x9q2ma`, { method: "POST", body: "{}" }),
      await fetch(`${t.rehook.url}/api/webhook/`, { method: "POST", body: "{}" }),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([202, 200, 200, 404, 404]);
    for (const answer of answers) {
      expectSecurityHeaders(answer);
      await answer.arrayBuffer();
    }
  });

  it("serves a custom response saved around the rules (straight into the database) inert, after a delay too", async () => {
    const endpoint = await newEndpoint("Old row");
    const hostile = {
      status: 200,
      headers: {
        "Content-Type": "text/html",
        "Set-Cookie": "rehook_session=attacker; Path=/",
        "Clear-Site-Data": '"*"',
        "Service-Worker-Allowed": "/",
        "Content-Security-Policy": "script-src *",
        "X-Content-Type-Options": "sniff",
        Location: "https://evil.example/",
        Refresh: "0; url=https://evil.example/",
        // Node refuses these in writeHead: an answer carrying them used to crash the process after a delay.
        "X-Emoji": "🎉",
        "X-Line-Separator": "a\u2028b",
        "X-Kept": "{{event_id}}",
      },
      body: "<script>fetch('/trpc/apiKeys.create', { method: 'POST' })</script>",
      delayMs: 20,
    };
    await t.db.query("update endpoints set custom_response = $1 where id = $2", [JSON.stringify(hostile), endpoint.id]);
    const answer = await fetch(endpoint.url, { method: "POST", body: "{}", redirect: "manual" });
    expect(answer.status).toBe(200);
    expectSecurityHeaders(answer);
    expect(answer.headers.get("content-type")).toBe("text/plain; charset=utf-8");
    for (const refused of ["set-cookie", "clear-site-data", "service-worker-allowed", "location", "refresh", "x-emoji", "x-line-separator"]) expect(answer.headers.get(refused), refused).toBeNull();
    expect(answer.headers.get("x-kept")).toMatch(/^[0-9a-f-]{36}$/);
    expect(await answer.text()).toBe(hostile.body);
    // The server is still there.
    expect((await fetch(`${t.rehook.url}/healthz`)).status).toBe(200);
  });

  it("never stores or forwards the dashboard's session cookie", async () => {
    const endpoint = await newEndpoint("Cookies");
    const answer = await fetch(endpoint.url, { method: "POST", headers: { cookie: `theme=dark; ${dashboard.cookie}; lang=en` }, body: "{}" });
    const { eventId } = (await answer.json()) as { eventId: string };
    const event = await api("GET", `/events/${eventId}`);
    const cookies = (event.json!.headers as Array<[string, string]>).filter(([name]) => name.toLowerCase() === "cookie");
    expect(cookies).toEqual([["cookie", "theme=dark; lang=en"]]);
    expect(event.text).not.toContain(dashboard.sessionId()!);
  });
});

describe("CAPTURE_BASE_URL", () => {
  let separate: TestServer;
  const dashboardHost = "rehook.test";
  const captureHost = "hooks.test";

  beforeAll(async () => {
    separate = await startTestServer({ BASE_URL: `http://${dashboardHost}`, CAPTURE_BASE_URL: `http://${captureHost}/` }, t.db);
  });
  afterAll(() => separate?.close());

  it("builds the capture URLs the API and the dashboard show, keeps the dashboard off the capture host, and captures on both", async () => {
    const user = new DashboardClient(separate.rehook.url, `http://${dashboardHost}`, dashboardHost);
    expect((await user.postForm("/signup", { email: "separate@example.com", password: "a long enough password" })).status).toBe(303);
    const created = await user.mutate("endpoints.create", { name: "Separate" });
    expect(created.status).toBe(200);
    const endpoint = created.body.result!.data.json as { id: string; slug: string; webhookUrl: string };
    expect(endpoint.webhookUrl).toBe(`http://${captureHost}/api/webhook/${endpoint.slug}`);
    const apiKey = ((await user.mutate("apiKeys.create", { name: "tests" })).body.result!.data.json as { key: string }).key;
    const viaApi = await fetchWithHost(new URL(`/api/v1/endpoints/${endpoint.id}`, separate.rehook.url), captureHost, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(((await viaApi.json()) as { webhook_url: string }).webhook_url).toBe(endpoint.webhookUrl);

    // The dashboard answers only at BASE_URL's host: on the capture host, with the session cookie or not, 421.
    const onCaptureHost = new DashboardClient(separate.rehook.url, `http://${captureHost}`, captureHost);
    onCaptureHost.cookie = user.cookie;
    expect((await onCaptureHost.get("/")).status).toBe(421);
    expect((await onCaptureHost.mutate("apiKeys.create", { name: "stolen" })).status).toBe(421);

    // Senders set up before CAPTURE_BASE_URL keep working at the dashboard's host.
    const captureUrl = new URL(`/api/webhook/${endpoint.slug}`, separate.rehook.url);
    for (const host of [captureHost, dashboardHost]) {
      const answer = await fetchWithHost(captureUrl, host, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
      expect(answer.status, host).toBe(200);
      expectSecurityHeaders(answer);
    }
  });
});
