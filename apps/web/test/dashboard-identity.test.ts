import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DashboardClient, sha256Hex } from "./dashboard-client.js";
import { startTestServer, type TestServer } from "./test-server.js";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const password = "a long enough password";

describe("sign up, log in, log out", () => {
  it("signs up with a form post: 303 into the dashboard with a HttpOnly, SameSite=Lax, Path=/ session cookie", async () => {
    const browser = new DashboardClient(t.rehook.url);
    const response = await browser.postForm("/signup", { email: "New.User@Example.com", password });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/");
    const cookie = response.headers.getSetCookie().find((c) => c.startsWith("rehook_session="))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\//);
    expect(cookie).not.toMatch(/Secure/); // BASE_URL is http here
    expect((await browser.get("/")).status).toBe(200);
  });

  it("stores only a SHA-256 of the session id", async () => {
    const browser = new DashboardClient(t.rehook.url);
    await browser.postForm("/signup", { email: "hashed@example.com", password });
    const id = browser.sessionId()!;
    const rows = await t.db.query<{ id: string }>("select s.id from sessions s join users u on u.id = s.user_id where u.email = 'hashed@example.com'");
    expect(rows.map((r) => r.id)).toEqual([sha256Hex(id)]);
  });

  it("sends every dashboard page to /login without a session", async () => {
    const browser = new DashboardClient(t.rehook.url);
    for (const path of ["/", "/events", "/settings", "/endpoints/0192f0e0-0000-7000-8000-000000000000", "/events/0192f0e0-0000-7000-8000-000000000000"]) {
      const response = await browser.get(path);
      expect(response.status, path).toBeGreaterThanOrEqual(300);
      expect(response.status, path).toBeLessThan(400);
      expect(response.headers.get("location"), path).toMatch(/^\/login/);
    }
  });

  it("answers an unknown email and a wrong password with the same message, and logs in with the right one", async () => {
    const browser = new DashboardClient(t.rehook.url);
    await browser.postForm("/signup", { email: "login@example.com", password });
    const first = browser.sessionId();
    const stranger = new DashboardClient(t.rehook.url);
    const unknown = await stranger.postForm("/login", { email: "nobody@example.com", password });
    const wrong = await stranger.postForm("/login", { email: "login@example.com", password: "not the password" });
    expect(unknown.status).toBe(400);
    expect(wrong.status).toBe(400);
    const unknownPage = await unknown.text();
    const wrongPage = await wrong.text();
    expect(unknownPage).toContain("The email or the password is wrong. Check both and try again.");
    expect(wrongPage).toContain("The email or the password is wrong. Check both and try again.");

    const login = await browser.postForm("/login", { email: "login@example.com", password });
    expect(login.status).toBe(303);
    // A new session id at login; the old one no longer works.
    expect(browser.sessionId()).not.toBe(first);
    const old = new DashboardClient(t.rehook.url);
    old.cookie = `rehook_session=${first}`;
    expect((await old.get("/")).headers.get("location")).toMatch(/^\/login/);
  });

  it("logs out: the session ends, the cookie is cleared and pages go back to /login", async () => {
    const browser = new DashboardClient(t.rehook.url);
    await browser.postForm("/signup", { email: "logout@example.com", password });
    const id = browser.sessionId()!;
    const response = await browser.postForm("/logout", {});
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/login");
    expect(browser.cookie).toBeNull();
    const reused = new DashboardClient(t.rehook.url);
    reused.cookie = `rehook_session=${id}`;
    expect((await reused.get("/settings")).headers.get("location")).toMatch(/^\/login/);
    expect(await t.db.query("select 1 from sessions where id = $1", [sha256Hex(id)])).toHaveLength(0);
  });

  it("limits failed logins per email, per address and per both, without locking out a NAT or the account's owner", async () => {
    // Behind a trusted proxy, so each attempt can come from an address of its own.
    const proxied = await startTestServer({ TRUST_PROXY: "true" }, t.db);
    try {
      const from = (address: string) => ({ "x-forwarded-for": address });
      await new DashboardClient(proxied.rehook.url).postForm("/signup", { email: "limited@example.com", password }, from("192.0.2.200"));
      await new DashboardClient(proxied.rehook.url).postForm("/signup", { email: "neighbour@example.com", password }, from("192.0.2.201"));
      const attacker = new DashboardClient(proxied.rehook.url);
      for (let i = 0; i < 10; i += 1) {
        const attempt = await attacker.postForm("/login", { email: "limited@example.com", password: `wrong ${i}` }, from("198.51.100.7"));
        expect(attempt.status).toBe(400);
      }
      // The attacker's 11th guess is refused before any password is checked, even a right one.
      const refused = await attacker.postForm("/login", { email: "limited@example.com", password }, from("198.51.100.7"));
      expect(refused.status).toBe(429);
      expect(await refused.text()).toContain("There were too many failed logins. Try again in");

      // Someone else behind the attacker's NAT still logs in to their own account.
      expect((await new DashboardClient(proxied.rehook.url).postForm("/login", { email: "neighbour@example.com", password }, from("198.51.100.7"))).status).toBe(303);
      // The owner, from an address that has not failed, gets in with the right password ...
      expect((await new DashboardClient(proxied.rehook.url).postForm("/login", { email: "limited@example.com", password }, from("203.0.113.9"))).status).toBe(303);
      // ... while a wrong guess from a fresh address is counted and the next one refused there.
      expect((await attacker.postForm("/login", { email: "limited@example.com", password: "wrong again" }, from("203.0.113.50"))).status).toBe(400);
      expect((await attacker.postForm("/login", { email: "limited@example.com", password }, from("203.0.113.50"))).status).toBe(429);
    } finally {
      await proxied.close();
    }
  });

  it("refuses a form post from another site", async () => {
    const browser = new DashboardClient(t.rehook.url, "https://evil.example");
    const response = await browser.postForm("/signup", { email: "csrf@example.com", password });
    expect(response.status).toBe(403);
    expect(await response.json()).toEqual({ error: { code: "forbidden", message: "This cross-site form submission was refused. Submit the form from the dashboard itself." } });
    expect(await t.db.query("select 1 from users where email = 'csrf@example.com'")).toHaveLength(0);
  });

  it("marks the cookie Secure and __Host- prefixed when BASE_URL is https", async () => {
    const secure = await startTestServer({ BASE_URL: "https://rehook.example" }, t.db);
    try {
      // As the TLS proxy in front would forward it: the public Host, the browser's https Origin.
      const browser = new DashboardClient(secure.rehook.url, "https://rehook.example", "rehook.example");
      const response = await browser.postForm("/signup", { email: "secure@example.com", password });
      expect(response.status).toBe(303);
      const cookie = response.headers.getSetCookie().find((c) => c.startsWith("__Host-rehook_session="));
      expect(cookie).toMatch(/; Secure/);
      expect(cookie).toMatch(/; Path=\//);
      expect(cookie).not.toMatch(/Domain=/i);
      expect((await browser.get("/settings")).status).toBe(200);
    } finally {
      await secure.close();
    }
  });
});
