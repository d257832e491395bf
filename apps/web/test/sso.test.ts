import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { silentLogger, type Logger } from "@rehook/core";
import { createOrm, type Orm } from "@rehook/db";
import { createTeam, createUser } from "@rehook/services";
import { createTestDatabase, type TestDatabase } from "@rehook/vitest-config/postgres";
import { startOpenIdProvider, type TestAccount, type TestOpenIdProvider } from "./openid-provider.js";
import { startTestServer, type TestServer } from "./test-server.js";

// Single sign-on against a real OpenID provider (oidc-provider) on loopback, through Rehook's
// own pages: the login page's button, the provider's redirects, and the callback.

/** A browser's cookies (per host:port) over fetch, redirects followed by hand. */
class CookieBrowser {
  readonly jars = new Map<string, Map<string, string>>();

  async request(url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}): Promise<Response> {
    const target = new URL(url);
    const jar = this.jars.get(target.host) ?? new Map<string, string>();
    this.jars.set(target.host, jar);
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join("; ");
    const response = await fetch(target, { ...init, redirect: "manual", headers: { ...(cookie ? { cookie } : {}), ...init.headers } });
    for (const header of response.headers.getSetCookie()) {
      const [pair, ...attributes] = header.split(";");
      const [name, value] = [pair!.slice(0, pair!.indexOf("=")).trim(), pair!.slice(pair!.indexOf("=") + 1)];
      if (value === "" || attributes.some((attribute) => /^\s*max-age=0\s*$/i.test(attribute))) jar.delete(name);
      else jar.set(name, value);
    }
    return response;
  }

  cookie(host: string, name: string): string | undefined {
    return this.jars.get(host)?.get(name);
  }

  setCookie(host: string, name: string, value: string): void {
    this.jars.get(host)!.set(name, value);
  }
}

const location = (response: Response) => response.headers.get("location") ?? "";

interface Rehook {
  t: TestServer;
  host: string;
}

/** Presses "Sign in with …" and goes through the provider: answers the callback URL the provider sends the browser to. */
async function throughProvider(rehook: Rehook, browser: CookieBrowser, next = "/"): Promise<string> {
  // The login page's link, followed from the page itself (as the browser says with Sec-Fetch-Site).
  const started = await browser.request(`${rehook.t.rehook.url}/auth/oidc?${new URLSearchParams({ next })}`, { headers: { "sec-fetch-site": "same-origin" } });
  expect(started.status).toBe(303);
  let url = location(started);
  const authorization = new URL(url);
  expect(authorization.searchParams.get("code_challenge_method")).toBe("S256");
  expect(authorization.searchParams.get("nonce")).toBeTruthy();
  expect(authorization.searchParams.get("state")).toBeTruthy();
  for (let hops = 0; hops < 10 && !url.startsWith(`${rehook.t.rehook.url}/auth/oidc/callback`); hops += 1) {
    const answer = await browser.request(new URL(url, authorization).href);
    expect([302, 303]).toContain(answer.status);
    url = new URL(location(answer), authorization).href;
  }
  expect(url.startsWith(`${rehook.t.rehook.url}/auth/oidc/callback?`)).toBe(true);
  return url;
}

async function signIn(rehook: Rehook, provider: TestOpenIdProvider, account: TestAccount, next = "/"): Promise<{ browser: CookieBrowser; answer: Response }> {
  provider.signInAs(account);
  const browser = new CookieBrowser();
  const callback = await throughProvider(rehook, browser, next);
  return { browser, answer: await browser.request(callback) };
}

/** The newest sign-in entry of the audit log (any team). */
async function lastSignIn(t: TestServer): Promise<{ action: string; actor_name: string; changes: Record<string, string> | null; ip: string | null }> {
  const rows = await t.db.query<{ action: string; actor_name: string; changes: Record<string, string> | null; ip: string | null }>(
    "select action, actor_name, changes, ip from audit_log where action like 'user.sign_in%' order by id desc limit 1",
  );
  return rows[0]!;
}

async function signedIn(rehook: Rehook, browser: CookieBrowser): Promise<boolean> {
  const page = await browser.request(`${rehook.t.rehook.url}/`);
  return page.status === 200;
}

let provider: TestOpenIdProvider;
beforeAll(async () => {
  provider = await startOpenIdProvider();
});
afterAll(() => provider.close());

const ssoEnv = () => ({ OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: provider.clientId, OIDC_CLIENT_SECRET: provider.clientSecret, OIDC_NAME: "Acme ID" });

describe("OpenID Connect sign-in, sign-up closed", () => {
  let rehook: Rehook;
  let skewMs = 0;
  beforeAll(async () => {
    const t = await startTestServer({ ...ssoEnv(), SIGNUP: "closed" }, undefined, { now: () => Date.now() + skewMs });
    rehook = { t, host: new URL(t.rehook.url).host };
    provider.allowRedirect(`${t.rehook.url}/auth/oidc/callback`);
  });
  afterAll(() => rehook.t.close());

  it("offers the button on the login page, beside the password form", async () => {
    const html = await (await new CookieBrowser().request(`${rehook.t.rehook.url}/login`)).text();
    expect(html).toContain("Sign in with Acme ID");
    expect(html).toContain('name="password"');
  });

  it("links an existing account by its verified email, signs in, and goes where it was asked to", async () => {
    await createUser(rehook.t.rehook.services, { email: "ada@example.com", password: "a long enough password" });
    const { browser, answer } = await signIn(rehook, provider, { sub: "ada-1", email: "Ada@Example.com", email_verified: true }, "/events?status=failed");
    expect(answer.status).toBe(303);
    expect(location(answer)).toBe("/events?status=failed");
    expect(browser.cookie(rehook.host, "rehook_session")).toBeTruthy();
    expect(browser.cookie(rehook.host, "rehook_sso")).toBeUndefined(); // the pending sign-in ended
    expect(await signedIn(rehook, browser)).toBe(true);
    const links = await rehook.t.db.query<{ subject: string; email: string }>("select subject, u.email from user_identities i join users u on u.id = i.user_id");
    expect(links).toEqual([{ subject: "ada-1", email: "ada@example.com" }]);
    expect(await lastSignIn(rehook.t)).toMatchObject({ action: "user.sign_in", actor_name: "ada@example.com", changes: { method: "sso" }, ip: "127.0.0.1" });
    // The link itself is a change to the account, in its team's log with the provider it trusts now.
    const linked = await rehook.t.db.query<{ actor_name: string; changes: Record<string, string>; ip: string }>("select actor_name, changes, ip from audit_log where action = 'user.link_identity'");
    expect(linked).toEqual([{ actor_name: "ada@example.com", changes: { issuer: provider.issuer }, ip: "127.0.0.1" }]);
  });

  it("finds a linked account by its subject after the email changed at the provider", async () => {
    const { browser, answer } = await signIn(rehook, provider, { sub: "ada-1", email: "ada.lovelace@example.org", email_verified: true });
    expect(location(answer)).toBe("/");
    expect(await signedIn(rehook, browser)).toBe(true);
    expect(await lastSignIn(rehook.t)).toMatchObject({ action: "user.sign_in", actor_name: "ada@example.com" });
  });

  it("takes xms_edov as a verified email from Microsoft Entra only, not from this provider", async () => {
    const { browser, answer } = await signIn(rehook, provider, { sub: "ada-1", email: "ada@example.com", xms_edov: true });
    expect(location(answer)).toBe("/login?sso_error=unverified_email");
    expect(await signedIn(rehook, browser)).toBe(false);
  });

  it("never redirects off the dashboard after signing in", async () => {
    for (const next of ["https://evil.example/", "//evil.example/", "/\\evil.example/"]) {
      const { answer } = await signIn(rehook, provider, { sub: "ada-1", email: "ada@example.com", email_verified: true }, next);
      expect(location(answer)).toBe("/");
    }
  });

  it("creates no account while sign-up is closed", async () => {
    const { browser, answer } = await signIn(rehook, provider, { sub: "bob-1", email: "bob@example.com", email_verified: true });
    expect(location(answer)).toBe("/login?sso_error=no_account");
    expect(await signedIn(rehook, browser)).toBe(false);
    expect((await rehook.t.db.query("select 1 from users where email = 'bob@example.com'")).length).toBe(0);
    const page = await (await browser.request(`${rehook.t.rehook.url}${location(answer)}`)).text();
    expect(page).toContain("There is no Rehook account for your email");
  });

  it("refuses an unverified email, even one that has an account", async () => {
    for (const verified of [false, "false", undefined]) {
      const { browser, answer } = await signIn(rehook, provider, { sub: `mallory-${String(verified)}`, email: "ada@example.com", ...(verified === undefined ? {} : { email_verified: verified }) });
      expect(location(answer)).toBe("/login?sso_error=unverified_email");
      expect(await signedIn(rehook, browser)).toBe(false);
    }
    expect(await lastSignIn(rehook.t)).toMatchObject({ action: "user.sign_in_failed", changes: { method: "sso", reason: "the provider has not verified the email" } });
  });

  it("refuses an ID token whose nonce is not the one this browser sent", async () => {
    provider.signInAs({ sub: "ada-1", email: "ada@example.com", email_verified: true });
    const browser = new CookieBrowser();
    const callback = await throughProvider(rehook, browser);
    const pending = JSON.parse(Buffer.from(browser.cookie(rehook.host, "rehook_sso")!, "base64url").toString()) as Record<string, unknown>;
    browser.setCookie(rehook.host, "rehook_sso", Buffer.from(JSON.stringify({ ...pending, nonce: "not-the-nonce-that-was-sent" })).toString("base64url"));
    const answer = await browser.request(callback);
    expect(location(answer)).toBe("/login?sso_error=provider");
    expect(await signedIn(rehook, browser)).toBe(false);
    expect((await lastSignIn(rehook.t)).changes?.reason).toMatch(/nonce/);
  });

  it("refuses an expired ID token", async () => {
    skewMs = 2 * 60 * 60_000; // Rehook's clock two hours ahead: the provider's one-hour tokens have expired
    try {
      const { browser, answer } = await signIn(rehook, provider, { sub: "ada-1", email: "ada@example.com", email_verified: true });
      expect(location(answer)).toBe("/login?sso_error=provider");
      expect(await signedIn(rehook, browser)).toBe(false);
      expect((await lastSignIn(rehook.t)).changes?.reason).toMatch(/exp/);
    } finally {
      skewMs = 0;
    }
  });

  it("binds the sign-in to the browser that started it: another browser, or another sign-in's state, fails", async () => {
    provider.signInAs({ sub: "ada-1", email: "ada@example.com", email_verified: true });
    const victim = new CookieBrowser();
    const callback = await throughProvider(rehook, victim);
    // The callback URL (code and state) opened in a browser without the cookie.
    const attacker = new CookieBrowser();
    const stolen = await attacker.request(callback);
    expect(location(stolen)).toBe("/login?sso_error=expired");
    expect(await signedIn(rehook, attacker)).toBe(false);
    expect(await lastSignIn(rehook.t)).toMatchObject({ action: "user.sign_in_failed", changes: { method: "sso", reason: expect.stringMatching(/no sign-in started in this browser/) }, ip: "127.0.0.1" });
    // The attacker's own pending sign-in, with the victim's code and state.
    await throughProvider(rehook, attacker);
    const mixed = await attacker.request(callback);
    expect(location(mixed)).toBe("/login?sso_error=provider");
    expect((await lastSignIn(rehook.t)).changes?.reason).toMatch(/state/);
    // The code was not spent: its own browser still signs in with it.
    const own = await victim.request(callback);
    expect(location(own)).toBe("/");
  });

  it("does not start a sign-in from another site's link or form", async () => {
    const url = `${rehook.t.rehook.url}/auth/oidc?next=%2F`;
    const foreign: Array<Record<string, string>> = [{ "sec-fetch-site": "cross-site" }, { "sec-fetch-site": "same-site" }, { referer: "https://evil.example/" }, {}];
    for (const headers of foreign) {
      const browser = new CookieBrowser();
      const answer = await browser.request(url, { headers });
      expect(location(answer)).toBe("/login?sso_error=foreign_start");
      expect(browser.cookie(rehook.host, "rehook_sso")).toBeUndefined();
    }
    // The login page it lands on says why, and what to do instead.
    const landed = await (await new CookieBrowser().request(`${rehook.t.rehook.url}/login?sso_error=foreign_start`)).text();
    expect(landed).toContain("Sign-in could not start from this page. Use the button on this sign-in page.");
    // A browser without Sec-Fetch-Site that sends our own page as Referer (our Referrer-Policy is same-origin).
    const referred = await new CookieBrowser().request(url, { headers: { referer: `${rehook.t.rehook.url}/login` } });
    expect(location(referred).startsWith(`${provider.issuer}/auth?`)).toBe(true);
    const crossSite = await new CookieBrowser().request(`${rehook.t.rehook.url}/auth/oidc`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: "https://evil.example" },
      body: "next=%2F",
    });
    expect(crossSite.status).toBe(403);
    // The form post of an earlier login page (still open from before an upgrade) goes back to the login page.
    const posted = await new CookieBrowser().request(`${rehook.t.rehook.url}/auth/oidc`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: rehook.t.rehook.url },
      body: "next=%2F",
    });
    expect(location(posted)).toBe("/login");
    // Nor through /trpc: the pages call these procedures themselves.
    const trpc = await new CookieBrowser().request(`${rehook.t.rehook.url}/trpc/auth.ssoStart`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: rehook.t.rehook.url },
      body: JSON.stringify({ json: { next: "/", dashboardOrigin: rehook.t.rehook.url } }),
    });
    expect(trpc.status).toBe(404);
  });

  it("counts failed callbacks in the login throttle, which then stops the password form from that address too", async () => {
    provider.signInAs({ sub: "ada-1", email: "ada@example.com", email_verified: true });
    const browser = new CookieBrowser();
    const callback = new URL(await throughProvider(rehook, browser));
    callback.searchParams.set("code", "a-code-the-provider-never-issued");
    const pending = browser.cookie(rehook.host, "rehook_sso")!;
    let refusals = 0;
    let answer: Response | undefined;
    for (let tries = 0; tries < 120; tries += 1) {
      answer = await browser.request(callback.href);
      if (location(answer) === "/login?sso_error=throttled") break;
      // The pending sign-in is cleared by every answer: the browser presents it again.
      refusals += 1;
      browser.setCookie(rehook.host, "rehook_sso", pending);
    }
    expect(location(answer!)).toBe("/login?sso_error=throttled");
    expect(refusals).toBeLessThanOrEqual(100);
    const password = await new CookieBrowser().request(`${rehook.t.rehook.url}/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: rehook.t.rehook.url },
      body: new URLSearchParams({ email: "ada@example.com", password: "a long enough password" }).toString(),
    });
    expect(password.status).toBe(429);
  });
});

/** A database of the file's own with the operator (its first user, a server admin) and an ordinary user in it. */
async function seededDatabase(): Promise<{ db: TestDatabase; orm: Orm; operatorId: string; squatterId: string; close(): Promise<void> }> {
  const db = await createTestDatabase();
  const orm = await createOrm({ databaseUrl: db.url, poolSize: 1 });
  const operator = await createUser({ orm }, { email: "operator@example.net", password: "a long enough password" });
  expect(operator.isAdmin).toBe(true);
  const squatter = await createUser({ orm }, { email: "squatter@example.net", password: "a long enough password" });
  return {
    db,
    orm,
    operatorId: operator.id,
    squatterId: squatter.id,
    async close() {
      await orm.close(true);
      await db.drop();
    },
  };
}

describe("OpenID Connect as the only way in: allowed domains, a default team, no password form", () => {
  let rehook: Rehook;
  let seeded: Awaited<ReturnType<typeof seededDatabase>>;
  beforeAll(async () => {
    seeded = await seededDatabase();
    // The operator's team exists before the server starts (it checks OIDC_DEFAULT_TEAM then).
    const team = await createTeam({ orm: seeded.orm }, { userId: seeded.operatorId, name: "Platform" });
    expect(team.slug).toBe("platform");
    const t = await startTestServer(
      {
        ...ssoEnv(),
        SIGNUP: "closed",
        PASSWORD_LOGIN: "false",
        OIDC_ALLOWED_DOMAINS: "Example.com, example.org",
        OIDC_DEFAULT_TEAM: "platform",
        OIDC_DEFAULT_ROLE: "developer",
      },
      seeded.db,
    );
    rehook = { t, host: new URL(t.rehook.url).host };
    provider.allowRedirect(`${t.rehook.url}/auth/oidc/callback`);
  });
  afterAll(async () => {
    await rehook.t.close();
    await seeded.close();
  });

  it("shows the button only, and refuses the password form", async () => {
    const html = await (await new CookieBrowser().request(`${rehook.t.rehook.url}/login`)).text();
    expect(html).toContain("Sign in with Acme ID");
    expect(html).not.toContain('name="password"');
    const posted = await new CookieBrowser().request(`${rehook.t.rehook.url}/login`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: rehook.t.rehook.url },
      body: new URLSearchParams({ email: "anyone@example.com", password: "a long enough password" }).toString(),
    });
    expect(posted.status).toBe(400);
    expect(await posted.text()).toContain("Password sign-in is turned off on this server");
  });

  it("creates the account of an allowed domain, with no password, in the default team with the default role", async () => {
    const { browser, answer } = await signIn(rehook, provider, { sub: "carol-1", email: "carol@example.org", email_verified: true });
    expect(location(answer)).toBe("/");
    expect(await signedIn(rehook, browser)).toBe(true);
    const rows = await rehook.t.db.query<{ password_hash: string | null; role: string; slug: string }>(
      "select u.password_hash, m.role, t.slug from users u join team_members m on m.user_id = u.id join teams t on t.id = m.team_id where u.email = 'carol@example.org' order by t.slug",
    );
    expect(rows).toEqual([
      { password_hash: null, role: "owner", slug: rows[0]!.slug }, // the personal team
      { password_hash: null, role: "developer", slug: "platform" },
    ]);
    const joined = await rehook.t.db.query<{ actor_type: string; changes: Record<string, string> }>("select actor_type, changes from audit_log where action = 'member.add' and target_name = 'carol@example.org'");
    expect(joined).toEqual([{ actor_type: "system", changes: { role: "developer", via: "single sign-on (OIDC_DEFAULT_TEAM)" } }]);
    const created = await rehook.t.db.query<{ actor_type: string; actor_name: string; changes: Record<string, string> }>("select actor_type, actor_name, changes from audit_log where action = 'user.create' and target_name = 'carol@example.org'");
    expect(created).toEqual([{ actor_type: "user", actor_name: "carol@example.org", changes: { via: "single sign-on", personal_team: expect.any(String) } }]);
  });

  it("refuses an email outside the allowed domains, even a verified one", async () => {
    const { browser, answer } = await signIn(rehook, provider, { sub: "dave-1", email: "dave@evil.example", email_verified: true });
    expect(location(answer)).toBe("/login?sso_error=domain");
    expect(await signedIn(rehook, browser)).toBe(false);
    expect((await rehook.t.db.query("select 1 from users where email = 'dave@evil.example'")).length).toBe(0);
    expect(await lastSignIn(rehook.t)).toMatchObject({ action: "user.sign_in_failed", actor_name: "dave@evil.example" });
  });
});

describe("OIDC_DEFAULT_TEAM names only a team an operator made", () => {
  let seeded: Awaited<ReturnType<typeof seededDatabase>>;
  beforeAll(async () => {
    seeded = await seededDatabase();
  });
  afterAll(() => seeded.close());

  /** What the server warned the operator about OIDC_DEFAULT_TEAM. */
  const warnings: Array<{ message: string; fields?: Record<string, unknown> }> = [];
  const logger: Logger = { ...silentLogger, warn: (message, fields) => void (message.includes("OIDC_DEFAULT_TEAM") && warnings.push({ message, fields })) };
  const start = (env: Record<string, string>) => startTestServer({ ...ssoEnv(), SIGNUP: "closed", OIDC_ALLOWED_DOMAINS: "example.org", ...env }, seeded.db, { logger });
  /** The slugs of the teams an email's account belongs to. */
  const teamsOf = async (t: TestServer, email: string) =>
    (await t.db.query<{ slug: string }>("select t.slug from teams t join team_members m on m.team_id = t.id join users u on u.id = m.user_id where u.email = $1 and t.personal_of_id is null", [email])).map(
      (row) => row.slug,
    );

  it("refuses to start, in one line, when the team is missing, someone's personal team, or made by an ordinary user first", async () => {
    await expect(start({ OIDC_DEFAULT_TEAM: "platform" })).rejects.toThrow(/^invalid OIDC_DEFAULT_TEAM: there is no team platform; create one with rehook team create/);
    await expect(start({ OIDC_DEFAULT_TEAM: "squatter" })).rejects.toThrow(/^invalid OIDC_DEFAULT_TEAM: squatter is a user's personal team/);
    // The squat: an ordinary user takes the slug before the operator makes the team.
    const squat = await createTeam({ orm: seeded.orm }, { userId: seeded.squatterId, name: "Platform" });
    expect(squat.slug).toBe("platform");
    const refused = start({ OIDC_DEFAULT_TEAM: "platform" });
    await expect(refused).rejects.toThrow(/^invalid OIDC_DEFAULT_TEAM: team platform was not made by an operator .*rehook team adopt --slug platform/);
    await expect(refused.catch((error: Error) => error.message.includes("\n"))).resolves.toBe(false);
  });

  it("starts with the operator's team under its suffixed slug; new accounts join it, and no team once anyone else holds that slug", async () => {
    const ours = await createTeam({ orm: seeded.orm }, { userId: seeded.operatorId, name: "Platform" });
    expect(ours.slug).toMatch(/^platform-/);
    const t = await start({ OIDC_DEFAULT_TEAM: ours.slug });
    try {
      const rehook = { t, host: new URL(t.rehook.url).host };
      provider.allowRedirect(`${t.rehook.url}/auth/oidc/callback`);
      const first = await signIn(rehook, provider, { sub: "erin-1", email: "erin@example.org", email_verified: true });
      expect(location(first.answer)).toBe("/");
      expect(await teamsOf(t, "erin@example.org")).toEqual([ours.slug]);
      expect(warnings).toEqual([]);
      // While it runs, the team is deleted and an ordinary user makes one with the same slug.
      await seeded.db.query("delete from teams where id = $1", [ours.id]);
      expect((await createTeam({ orm: seeded.orm }, { userId: seeded.squatterId, name: ours.slug })).slug).toBe(ours.slug);
      const second = await signIn(rehook, provider, { sub: "frank-1", email: "frank@example.org", email_verified: true });
      expect(location(second.answer)).toBe("/");
      expect(await teamsOf(t, "frank@example.org")).toEqual([]);
      // Not silently: the operator is told which setting no longer names an operator's team.
      expect(warnings).toEqual([{ message: "OIDC_DEFAULT_TEAM names no team an operator made: the new account joined no team", fields: { OIDC_DEFAULT_TEAM: ours.slug, user: expect.any(String) } }]);
    } finally {
      await t.close();
    }
  });
});
