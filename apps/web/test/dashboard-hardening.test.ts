import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DashboardClient } from "./dashboard-client.js";
import { head, rawRequest } from "./raw-http.js";
import { startTestServer, type TestServer } from "./test-server.js";

// Hostile requests against the dashboard's surface (pages, /trpc, the session replay route):
// what an outsider can send without an account, and what a signed-in tenant can abuse.

let t: TestServer;
let owner: DashboardClient;
const password = "a long enough password";

beforeAll(async () => {
  t = await startTestServer();
  owner = new DashboardClient(t.rehook.url);
  expect((await owner.postForm("/signup", { email: "hardening@example.com", password })).status).toBe(303);
});
afterAll(() => t.close());

const errorShape = { error: { code: expect.any(String), message: expect.any(String) } };

/** A raw request head addressed to the test server's own Host (the dashboard refuses others). */
function ownHead(method: string, target: string, headers: Array<[string, string]>): string {
  return head(method, target, headers).replace("Host: localhost", `Host: ${new URL(t.rehook.url).host}`);
}

describe("the dashboard answers only at its own origins", () => {
  it("gives a foreign Host no page, no procedure and no mutation (DNS rebinding, spoofed Host)", async () => {
    const rebound = new DashboardClient(t.rehook.url, "http://attacker.example", "attacker.example");
    rebound.cookie = owner.cookie;
    const page = await rebound.get("/settings");
    expect(page.status).toBe(421);
    expect(await page.json()).toMatchObject({ error: { code: "misdirected" } });
    const created = await rebound.mutate("endpoints.create", { name: "rebound" });
    expect(created.status).toBe(421);
    expect(await t.db.query("select 1 from endpoints where name = 'rebound'")).toHaveLength(0);
    // The capture URL does not depend on Host: senders behind odd proxies still get through.
    const endpoint = await t.createEndpoint("any host");
    const raw = await rawRequest(t.rehook.url, [head("POST", `/api/webhook/${endpoint.slug}`, [["Content-Length", "2"]]).replace("Host: localhost", "Host: elsewhere.example"), "{}"]);
    expect(raw.status).toBe(200);
  });

  it("refuses absolute-form request targets instead of trusting the host inside them", async () => {
    for (const target of ["http://attacker.example/settings", "//attacker.example/api-docs"]) {
      const response = await rawRequest(t.rehook.url, [ownHead("GET", target, [])]);
      expect(response.status, target).toBe(400);
      expect(JSON.parse(response.body)).toEqual({ error: { code: "bad_request", message: "The request target must be a path starting with /. Check the URL." } });
    }
  });

  it("answers an HTTP/1.1 request without Host with the JSON error shape", async () => {
    const response = await rawRequest(t.rehook.url, ["GET /settings HTTP/1.1\r\nConnection: close\r\n\r\n"]);
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body)).toEqual({ error: { code: "bad_request", message: "HTTP/1.1 requests need a Host header" } });
  });

  it("builds the API reference in-process: it renders even when BASE_URL's host does not resolve", async () => {
    const elsewhere = await startTestServer({ BASE_URL: "http://rehook.invalid" }, t.db);
    try {
      const browser = new DashboardClient(elsewhere.rehook.url, "http://rehook.invalid", "rehook.invalid");
      expect((await browser.postForm("/signup", { email: "docs@example.com", password })).status).toBe(303);
      const page = await browser.get("/api-docs");
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain("http://rehook.invalid/api/v1");
      expect(html).toContain("listEvents");
      expect(html).not.toContain("could not fetch");
      expect(html).not.toContain("could not be read");
    } finally {
      await elsewhere.close();
    }
  });

  it("checks the session in every page loader, also when a data request names one route alone", async () => {
    const stranger = new DashboardClient(t.rehook.url);
    for (const route of ["_app._index", "_app.settings", "_app.events._index", "_app.replays._index", "_app.api-docs"]) {
      const path = route === "_app._index" ? "/_root.data" : `/${route.replace("_app.", "").replace("._index", "")}.data`;
      const response = await stranger.get(`${path}?_routes=${encodeURIComponent(`routes/${route}`)}`);
      expect(response.status, route).toBeLessThan(500);
      const body = await response.text();
      expect(body, route).not.toContain("hardening@example.com");
      expect(body, route).toContain("/login");
    }
  });
});

describe("request bodies are bounded before they are parsed", () => {
  it("refuses a /trpc body over 1 MiB with 413, declared or chunked, without reading the rest", async () => {
    const declared = await rawRequest(t.rehook.url, [
      ownHead("POST", "/trpc/endpoints.create", [["Content-Type", "application/json"], ["Origin", t.rehook.url], ["Content-Length", String(1024 * 1024 + 1)]]),
    ]);
    expect(declared.status).toBe(413);
    expect(JSON.parse(declared.body)).toMatchObject({ error: { code: "payload_too_large" } });

    const chunk = Buffer.alloc(256 * 1024, 0x61);
    const chunked = await rawRequest(t.rehook.url, [
      ownHead("POST", "/trpc/endpoints.create", [["Content-Type", "application/json"], ["Origin", t.rehook.url], ["Transfer-Encoding", "chunked"]]),
      ...Array.from({ length: 6 }, () => Buffer.concat([Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from("\r\n")])),
    ]);
    expect(chunked.status).toBe(413);
    expect(JSON.parse(chunked.body)).toMatchObject(errorShape);
  });

  it("refuses form posts over 64 KiB on login, signup and dashboard actions with 413", async () => {
    for (const path of ["/login", "/signup", "/settings"]) {
      const response = await owner.postForm(path, { email: "x@example.com", password: "p".repeat(70 * 1024) });
      expect(response.status, path).toBe(413);
      expect(await response.json()).toMatchObject({ error: { code: "payload_too_large" } });
    }
  });

  it("refuses passwords over 1,024 characters on login as on signup, before hashing", async () => {
    const browser = new DashboardClient(t.rehook.url);
    const login = await browser.mutate("auth.logIn", { email: "hardening@example.com", password: "x".repeat(1025) });
    expect(login.status).toBe(400);
    expect(login.body.error?.json.message).toContain("at most 1024 characters");
  });
});

describe("login and signup cannot be flooded", () => {
  it("caps tRPC batches at 10 calls and never batches auth procedures", async () => {
    const eleven = Array.from({ length: 11 }, () => "endpoints.list").join(",");
    const big = await owner.get(`/trpc/${eleven}?batch=1&input=${encodeURIComponent("{}")}`);
    expect(big.status).toBe(400);
    expect(await big.json()).toEqual({ error: { code: "bad_request", message: "at most 10 calls may be batched in one request" } });
    for (const path of ["auth.logIn,auth.logIn?batch=1", "auth.logIn%2Cauth.logIn?batch=1", "endpoints.list,%61uth.logIn?batch=1"]) {
      const logins = await new DashboardClient(t.rehook.url).mutate(path, {});
      expect(logins.status, path).toBe(400);
    }
    const ten = Array.from({ length: 10 }, () => "endpoints.list").join(",");
    expect((await owner.get(`/trpc/${ten}?batch=1&input=${encodeURIComponent("{}")}`)).status).toBe(200);
  });

  it("counts each login attempt before its hash runs: 15 concurrent guesses get at most 10 answers", async () => {
    const guesses = await Promise.all(
      Array.from({ length: 15 }, (_, i) => new DashboardClient(t.rehook.url).mutate("auth.logIn", { email: "hardening@example.com", password: `guess ${i}` })),
    );
    const statuses = guesses.map((guess) => guess.status);
    expect(statuses.filter((status) => status === 401)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(5);
  });

  it("limits sign-ups per client address", async () => {
    const proxied = await startTestServer({ TRUST_PROXY: "true", SIGNUPS_PER_ADDRESS_PER_HOUR: "2" }, t.db);
    try {
      const signUp = (email: string, address: string) =>
        new DashboardClient(proxied.rehook.url).mutate("auth.signUp", { email, password }, { "x-forwarded-for": address });
      expect((await signUp("s1@example.com", "198.51.100.20")).status).toBe(200);
      expect((await signUp("s2@example.com", "198.51.100.20")).status).toBe(200);
      const third = await signUp("s3@example.com", "198.51.100.20");
      expect(third.status).toBe(429);
      expect(third.body.error?.json.message).toContain("There were too many sign-ups from this address. Try again in");
      expect((await signUp("s4@example.com", "198.51.100.21")).status).toBe(200);
    } finally {
      await proxied.close();
    }
  });
});

describe("errors are clear JSON answers, never a stack trace", () => {
  it("answers malformed percent-escapes in ids with 400", async () => {
    const replay = await fetch(`${t.rehook.url}/api/events/%E0%A4%A/replay`, {
      method: "POST",
      headers: { cookie: owner.cookie!, origin: t.rehook.url, "content-type": "application/json" },
      body: JSON.stringify({ environment: "original" }),
    });
    expect(replay.status).toBe(400);
    expect(await replay.json()).toEqual({ error: { code: "bad_request", message: "the path has a malformed percent-escape" } });
    const api = await fetch(`${t.rehook.url}/api/v1/events/%E0%A4%A`, { headers: { authorization: "Bearer pk_live_x" } });
    expect(api.status).toBe(400);
    expect(await api.json()).toMatchObject(errorShape);
    const page = await fetch(`${t.rehook.url}/assets/%E0%A4%A.js`);
    expect(page.status).toBe(400);
    expect(await page.json()).toEqual({ error: { code: "bad_request", message: "the path has a malformed percent-escape" } });
  });

  it("cuts a client that sends its headers slowly within about 11 seconds", async () => {
    const started = performance.now();
    const response = await rawRequest(t.rehook.url, ["GET / HTTP/1.1\r\n", "Host: localhost\r\n", ...Array.from({ length: 40 }, (_, i) => `X-Slow-${i}: 1\r\n`)], { pauseMs: 500 });
    const elapsed = performance.now() - started;
    expect(response.status).toBe(408);
    expect(elapsed).toBeLessThan(12_500);
  }, 20_000);
});

describe("security headers", () => {
  it("sends CSP with a per-response nonce, nosniff, framing and referrer rules, and no-store on pages", async () => {
    const first = await owner.get("/settings");
    const second = await owner.get("/settings");
    expect(first.status).toBe(200);
    const html = await first.text();
    const csp = first.headers.get("content-security-policy")!;
    const nonce = /'nonce-([^']+)'/.exec(csp)![1]!;
    expect(nonce).not.toBe(/'nonce-([^']+)'/.exec(second.headers.get("content-security-policy")!)![1]);
    expect(html).toContain(`nonce="${nonce}"`);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'self'");
    expect(first.headers.get("x-content-type-options")).toBe("nosniff");
    expect(first.headers.get("x-frame-options")).toBe("DENY");
    expect(first.headers.get("referrer-policy")).toBe("same-origin");
    expect(first.headers.get("cache-control")).toBe("no-store");
  });

  it("marks answers that carry a secret or a key no-store", async () => {
    const key = await owner.mutate("apiKeys.create", { name: "headers" });
    expect(key.status).toBe(200);
    const again = await fetch(`${t.rehook.url}/trpc/apiKeys.create`, {
      method: "POST",
      headers: { cookie: owner.cookie!, origin: t.rehook.url, "content-type": "application/json" },
      body: JSON.stringify({ json: { name: "headers 2" } }),
    });
    expect(again.headers.get("cache-control")).toBe("no-store");
    expect(again.headers.get("x-content-type-options")).toBe("nosniff");
    const api = await fetch(`${t.rehook.url}/api/v1/endpoints`, { headers: { authorization: "Bearer pk_live_nope" } });
    expect(api.headers.get("cache-control")).toBe("no-store");
    expect(api.headers.get("x-content-type-options")).toBe("nosniff");
  });
});

describe("client addresses behind proxies", () => {
  it("takes the right-most address the trusted proxies did not add, never the left-most", async () => {
    const oneHop = await startTestServer({ TRUST_PROXY: "true" }, t.db);
    const twoHops = await startTestServer({ TRUST_PROXY: "true", TRUST_PROXY_HOPS: "2" }, t.db);
    try {
      const capture = async (server: TestServer, name: string) => {
        const endpoint = await server.createEndpoint(name);
        const response = await fetch(`${server.rehook.url}/api/webhook/${endpoint.slug}`, {
          method: "POST",
          headers: { "x-forwarded-for": "6.6.6.6, 198.51.100.1, 203.0.113.2" },
          body: "{}",
        });
        const { eventId } = (await response.json()) as { eventId: string };
        const [row] = await t.db.query<{ client_ip: string }>("select client_ip from events where id = $1", [eventId]);
        return row!.client_ip;
      };
      expect(await capture(oneHop, "one hop")).toBe("203.0.113.2");
      expect(await capture(twoHops, "two hops")).toBe("198.51.100.1");
      expect(await capture(t, "no proxy")).toBe("127.0.0.1");
    } finally {
      await oneHop.close();
      await twoHops.close();
    }
  });
});
