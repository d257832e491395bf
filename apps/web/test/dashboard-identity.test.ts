import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DashboardClient } from "./dashboard-client.js";
import { startTestServer, type TestServer } from "./test-server.js";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.close());

const password = "a long enough password";

// The forms and the session cookie over HTTP. What the procedures do (the session row holds a
// hash, logOut deletes it, failed-login limits) is tested in packages/api/test/auth.test.ts.

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
  });

  it("answers a login the failed-login limit refuses with 429 and the reason on the page", async () => {
    // Which attempts the limit refuses is tested on auth.logIn (packages/api/test/auth.test.ts); here, the form's answer.
    await new DashboardClient(t.rehook.url).postForm("/signup", { email: "limited@example.com", password });
    const attacker = new DashboardClient(t.rehook.url);
    for (let i = 0; i < 10; i += 1) {
      expect((await attacker.postForm("/login", { email: "limited@example.com", password: `wrong ${i}` })).status).toBe(400);
    }
    const refused = await attacker.postForm("/login", { email: "limited@example.com", password });
    expect(refused.status).toBe(429);
    expect(await refused.text()).toContain("There were too many failed logins. Try again in");
    expect(attacker.sessionId()).toBeNull();
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
