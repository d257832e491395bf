import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inviteAccountsRefusal, type SignupMode } from "@rehook/core";
import { AttemptLimiter, createSessionManager, LoginThrottle } from "@rehook/auth";
import { createOrm, type Orm } from "@rehook/db";
import { createTestDatabase, type TestDatabase } from "../../../tooling/vitest/src/postgres.js";
import { acceptInvite, actorFor, checkInvite, createInvite, createTeam, createUser, listTeams, signUp, type Actor, type ServiceContext } from "../src/index.js";

// SIGNUP holds whoever makes the link: every user owns a personal team and may make invite
// links to it, but with SIGNUP=closed only a server admin's link creates an account, and with
// invite also a link from an admin of a shared team. Judged where the link is made (the
// answer says whether it creates accounts) and again where it is used (a link made before,
// or by an admin who has since lost the role, is held to today's rule). Any link still adds
// someone who already has an account.

let db: TestDatabase;
let orm: Orm;
const now = Date.parse("2030-01-01T00:00:00Z");
const password = "a long enough password";
const tokenOf = (url: string) => new URL(url).searchParams.get("invite")!;

/** The server admin (the first user), an ordinary user in their personal team, and a shared team's owner, admin and a developer. */
let serverAdmin: Actor;
let ordinary: Actor;
let sharedOwner: Actor;
let sharedAdmin: Actor;
let demoted: Actor;

function context(signup: SignupMode): Pick<ServiceContext, "orm" | "sessions" | "throttles" | "signup" | "now" | "baseUrl"> {
  return {
    orm,
    signup,
    now: () => now,
    baseUrl: "https://rehook.example.com",
    sessions: createSessionManager({ entityManager: () => orm.em.fork(), secureCookies: false }),
    throttles: { login: new LoginThrottle(), signup: new AttemptLimiter({ maxFailures: 1000, windowMs: 60_000 }) },
  };
}

async function member(email: string, teamId: string, role: "admin" | "developer", inviter: Actor): Promise<Actor> {
  const user = await createUser({ orm }, { email, password });
  await acceptInvite(context("open"), { userId: user.id, token: tokenOf((await createInvite(context("open"), inviter, { role })).url) });
  return (await actorFor({ orm }, { userId: user.id, teamId })).actor;
}

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await createOrm({ databaseUrl: db.url, poolSize: 2 });
  const first = await createUser({ orm }, { email: "operator@example.com", password });
  expect(first.isAdmin).toBe(true);
  serverAdmin = (await actorFor({ orm }, { userId: first.id })).actor;
  const owner = await createUser({ orm }, { email: "owner@example.com", password });
  ordinary = (await actorFor({ orm }, { userId: owner.id })).actor;
  const team = await createTeam({ orm }, { userId: owner.id, name: "Payments" });
  sharedOwner = (await actorFor({ orm }, { userId: owner.id, teamId: team.id })).actor;
  sharedAdmin = await member("admin@example.com", team.id, "admin", sharedOwner);
  demoted = await member("demoted@example.com", team.id, "admin", sharedOwner);
});
afterAll(async () => {
  await orm.close(true);
  await db.drop();
});

let made = 0;
/** Signs up a fresh email with the link; answers the new account's email, or throws the refusal. */
async function signUpWith(mode: SignupMode, url: string): Promise<string> {
  made += 1;
  const email = `newcomer-${made}@example.com`;
  await signUp(context(mode), { email, password, clientAddress: null, invite: tokenOf(url) });
  return email;
}

const accounts = async (email: string) => (await db.query("select 1 from users where email = $1", [email])).length;

describe("SIGNUP=closed", () => {
  const mode = "closed";

  it("a link from an ordinary user's personal team creates no account, says so when made, and stays usable by someone who has one", async () => {
    const created = await createInvite(context(mode), ordinary, {});
    expect(created.createsAccounts).toBe(false);
    expect(created.note).toMatch(/only a server admin's invite creates an account/);
    expect(await checkInvite(context(mode), tokenOf(created.url))).toBe("accounts_only");
    await expect(signUpWith(mode, created.url)).rejects.toMatchObject({ code: "forbidden", message: inviteAccountsRefusal("closed") });
    expect(await accounts(`newcomer-${made}@example.com`)).toBe(0);
    // Refused without being used up: an existing account still joins with it.
    const existing = await createUser({ orm }, { email: "existing@example.com", password });
    expect(await acceptInvite(context(mode), { userId: existing.id, token: tokenOf(created.url) })).toMatchObject({ teamId: ordinary.teamId });
  });

  it("neither does a link from a shared team's owner or admin", async () => {
    for (const inviter of [sharedOwner, sharedAdmin]) {
      const created = await createInvite(context(mode), inviter, {});
      expect(created.createsAccounts).toBe(false);
      await expect(signUpWith(mode, created.url)).rejects.toMatchObject({ code: "forbidden" });
    }
  });

  it("a server admin's link creates the account", async () => {
    const created = await createInvite(context(mode), serverAdmin, {});
    expect(created).toMatchObject({ createsAccounts: true, note: null });
    expect(await checkInvite(context(mode), tokenOf(created.url))).toBe("open");
    const email = await signUpWith(mode, created.url);
    expect(await accounts(email)).toBe(1);
  });
});

describe("SIGNUP=invite", () => {
  const mode = "invite";

  it("a link from an ordinary user's personal team creates no account", async () => {
    const created = await createInvite(context(mode), ordinary, {});
    expect(created.createsAccounts).toBe(false);
    expect(created.note).toMatch(/server admin or from an admin of a shared/);
    await expect(signUpWith(mode, created.url)).rejects.toMatchObject({ code: "forbidden", message: inviteAccountsRefusal("invite") });
  });

  it("a shared team's owner's and admin's links create accounts, which join that team", async () => {
    for (const inviter of [sharedOwner, sharedAdmin]) {
      const created = await createInvite(context(mode), inviter, { role: "viewer" });
      expect(created.createsAccounts).toBe(true);
      const email = await signUpWith(mode, created.url);
      const user = (await db.query<{ id: string }>("select id from users where email = $1", [email]))[0]!;
      expect((await listTeams({ orm }, { userId: user.id })).find((team) => team.id === sharedOwner.teamId)?.role).toBe("viewer");
    }
  });

  it("a link made by an admin who has since become a developer is judged by their role now", async () => {
    const created = await createInvite(context(mode), demoted, {});
    expect(created.createsAccounts).toBe(true);
    await db.query("update team_members set role = 'developer' where user_id = $1 and team_id = $2", [demoted.userId, demoted.teamId]);
    expect(await checkInvite(context(mode), tokenOf(created.url))).toBe("accounts_only");
    await expect(signUpWith(mode, created.url)).rejects.toMatchObject({ code: "forbidden" });
  });

  it("a server admin's link from their personal team creates the account", async () => {
    const created = await createInvite(context(mode), serverAdmin, {});
    expect(created.createsAccounts).toBe(true);
    expect(await accounts(await signUpWith(mode, created.url))).toBe(1);
  });
});

describe("SIGNUP=open", () => {
  it("any link creates an account (anyone may sign up anyway)", async () => {
    const created = await createInvite(context("open"), ordinary, {});
    expect(created).toMatchObject({ createsAccounts: true, note: null });
    expect(await accounts(await signUpWith("open", created.url))).toBe(1);
  });
});
