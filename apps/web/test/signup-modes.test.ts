import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser } from "@rehook/services";
import { DashboardClient } from "./dashboard-client.js";
import { startTestServer, type TestServer } from "./test-server.js";

// SIGNUP=closed over HTTP: the page says so and how to get an account, the form post is
// refused. Unknown dashboard URLs answer 404 inside the shell.

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ SIGNUP: "closed" });
});
afterAll(() => t.close());

const password = "a long enough password";

describe("SIGNUP=closed", () => {
  it("shows no form on /signup, only why and how to get an account", async () => {
    const page = await (await new DashboardClient(t.rehook.url).get("/signup")).text();
    expect(page).toContain("Sign-up is closed");
    expect(page).toContain("rehook user create");
    expect(page).not.toContain('name="password"');
  });

  it("offers no sign-up link on the login page, only how to get an account", async () => {
    const login = await new DashboardClient(t.rehook.url).get("/login");
    expect(login.status).toBe(200);
    const page = await login.text();
    expect(page).toContain('name="password"');
    expect(page).not.toContain('href="/signup');
    expect(page).not.toContain("Create one");
    expect(page).toContain("Sign-up is closed on this server");
  });

  // The procedure's refusal (auth.signUp) is tested in packages/api/test/auth.test.ts.
  it("refuses the form post, sets no cookie, and creates nobody", async () => {
    const browser = new DashboardClient(t.rehook.url);
    const posted = await browser.postForm("/signup", { email: "form@example.com", password });
    expect(posted.status).toBe(400);
    expect(browser.sessionId()).toBeNull();
    expect(await t.db.query("select 1 from users where email = 'form@example.com'")).toEqual([]);
  });
});

describe("unknown pages", () => {
  it("answer 404 inside the shell for a signed-in user, and a plain 404 to others", async () => {
    const anonymous = await new DashboardClient(t.rehook.url).get("/no-such-page");
    expect(anonymous.status).toBe(404);
    expect(await anonymous.text()).not.toContain('aria-label="Main"');
    await createUser({ orm: t.rehook.database.orm }, { email: "made-by-cli@example.com", password });
    const browser = new DashboardClient(t.rehook.url);
    expect((await browser.postForm("/login", { email: "made-by-cli@example.com", password })).status).toBe(303);
    const missing = await browser.get("/no-such-page");
    expect(missing.status).toBe(404);
    const page = await missing.text();
    expect(page).toContain("Page not found");
    expect(page).toContain('aria-label="Main"'); // the shell's navigation is there
    expect(page).toContain("Go to your endpoints");
  });
});
