import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { actorFor, createInvite, createUser } from "@rehook/services";
import { DashboardClient } from "./dashboard-client.js";
import { startTestServer, type TestServer } from "./test-server.js";

// SIGNUP=closed over HTTP: the page says so and how to get an account, the form post is
// refused; a server admin's invite link still signs up, an ordinary user's does not (it only
// adds someone who already has an account). Unknown dashboard URLs answer 404 inside the shell.

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

describe("SIGNUP=closed with an invite link", () => {
  it("shows the form, signs up and joins the invite's team with its role; the link then no longer works", async () => {
    const ctx = { orm: t.rehook.database.orm, baseUrl: t.rehook.url };
    const { url } = await createInvite(ctx, t.actor, { role: "viewer" });
    const token = new URL(url).searchParams.get("invite")!;
    const page = await (await new DashboardClient(t.rehook.url).get(`/signup?invite=${encodeURIComponent(token)}`)).text();
    expect(page).toContain('name="password"');
    expect(page).not.toContain("Sign-up is closed");

    const browser = new DashboardClient(t.rehook.url);
    const posted = await browser.postForm("/signup", { email: "invited@example.com", password, invite: token });
    expect(posted.status).toBe(303);
    expect(browser.sessionId()).not.toBeNull();
    const roles = await t.db.query<{ role: string }>(
      "select m.role from team_members m join users u on u.id = m.user_id where u.email = 'invited@example.com' and m.team_id = $1",
      [t.teamId],
    );
    expect(roles).toEqual([{ role: "viewer" }]);

    // Used once: a second sign-up with the same link is refused and creates nobody.
    const again = await new DashboardClient(t.rehook.url).postForm("/signup", { email: "invited-twice@example.com", password, invite: token });
    expect(again.status).toBe(400);
    expect(await t.db.query("select 1 from users where email = 'invited-twice@example.com'")).toEqual([]);
  });
});

describe("SIGNUP=closed with an ordinary user's invite link", () => {
  it("shows no form but how to use it with an account, refuses the sign-up and leaves the link usable", async () => {
    const orm = t.rehook.database.orm;
    const user = await createUser({ orm }, { email: "ordinary@example.com", password });
    expect(user.isAdmin).toBe(false);
    const { actor } = await actorFor({ orm }, { userId: user.id });
    const token = new URL((await createInvite({ orm, baseUrl: t.rehook.url }, actor, {})).url).searchParams.get("invite")!;
    const page = await (await new DashboardClient(t.rehook.url).get(`/signup?invite=${encodeURIComponent(token)}`)).text();
    expect(page).toContain("Log in to use this invite");
    expect(page).toContain("only an invite from a server admin creates an account");
    expect(page).not.toContain('name="password"');
    expect(page).toContain(`href="/login?next=${encodeURIComponent(`/signup?invite=${token}`)}"`);

    const browser = new DashboardClient(t.rehook.url);
    const posted = await browser.postForm("/signup", { email: "outsider@example.com", password, invite: token });
    expect(posted.status).toBe(400);
    expect(await posted.text()).toContain("This invite link only adds people who already have a Rehook account to its team.");
    expect(browser.sessionId()).toBeNull();
    expect(await t.db.query("select 1 from users where email = 'outsider@example.com'")).toEqual([]);
    expect(await t.db.query("select used_at from invites where created_by_id = $1", [user.id])).toEqual([{ used_at: null }]);
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
