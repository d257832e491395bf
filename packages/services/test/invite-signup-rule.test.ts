import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { inviteAccountsRefusal, type SignupMode } from "@rehook/core";
import { AttemptLimiter, createSessionManager, LoginThrottle } from "@rehook/auth";
import { createOrm, type Orm } from "@rehook/db";
import { createTestDatabase, type TestDatabase } from "../../../tooling/vitest/src/postgres.js";
import { acceptInvite, actorFor, adoptTeam, checkInvite, createInvite, createTeam, createUser, listTeams, signUp, type Actor, type ServiceContext } from "../src/index.js";

// SIGNUP holds whoever makes the link: every user owns a personal team and may make invite
// links to it, but with SIGNUP=closed only a server admin's link creates an account, and with
// invite also a link from an admin of a team an operator made (teams.made_by_operator: any
// user may create a team and own it, so "not personal" is not enough). Judged where the link is made (the
// answer says whether it creates accounts) and again where it is used (a link made before,
// or by an admin who has since lost the role, is held to today's rule). Any link still adds
// someone who already has an account.

let db: TestDatabase;
let orm: Orm;
const now = Date.parse("2030-01-01T00:00:00Z");
const password = "a long enough password";
const tokenOf = (url: string) => new URL(url).searchParams.get("invite")!;

/**
 * The server admin (the first user); an ordinary user in their personal team and as owner of a
 * team they made themselves; the owner (an ordinary user) and admins of a team the operator
 * made with `rehook team create`; and an ordinary admin of a team a server admin made.
 */
let serverAdmin: Actor;
let ordinary: Actor;
let ownTeamOwner: Actor;
let operatorOwner: Actor;
let operatorAdmin: Actor;
let demoted: Actor;
let adminTeamsAdmin: Actor;

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
  const user = await createUser({ orm }, { email: "user@example.com", password });
  ordinary = (await actorFor({ orm }, { userId: user.id })).actor;
  // Signed in, anyone may create a team (tRPC teams.create): they own it, but no operator made it.
  const own = await createTeam({ orm }, { userId: user.id, name: "Outsiders welcome" });
  ownTeamOwner = (await actorFor({ orm }, { userId: user.id, teamId: own.id })).actor;
  const owner = await createUser({ orm }, { email: "owner@example.com", password });
  const team = await createTeam({ orm }, { userId: owner.id, name: "Payments", byOperator: true });
  operatorOwner = (await actorFor({ orm }, { userId: owner.id, teamId: team.id })).actor;
  operatorAdmin = await member("admin@example.com", team.id, "admin", operatorOwner);
  demoted = await member("demoted@example.com", team.id, "admin", operatorOwner);
  const adminsTeam = await createTeam({ orm }, { userId: first.id, name: "Platform" });
  adminTeamsAdmin = await member("platform-admin@example.com", adminsTeam.id, "admin", (await actorFor({ orm }, { userId: first.id, teamId: adminsTeam.id })).actor);
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

  it("neither does a link from an operator's team's owner or admin", async () => {
    for (const inviter of [operatorOwner, operatorAdmin]) {
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
    expect(created.note).toMatch(/server admin or from an admin of a team the server's operator made/);
    await expect(signUpWith(mode, created.url)).rejects.toMatchObject({ code: "forbidden", message: inviteAccountsRefusal("invite") });
  });

  it("a link from a team an ordinary user made and owns creates no account, and stays unused", async () => {
    const created = await createInvite(context(mode), ownTeamOwner, { role: "admin" });
    expect(created.createsAccounts).toBe(false);
    expect(created.note).toMatch(/only an invite from a server admin or from an admin of a team the server's operator made/);
    expect(await checkInvite(context(mode), tokenOf(created.url))).toBe("accounts_only");
    await expect(signUpWith(mode, created.url)).rejects.toMatchObject({ code: "forbidden", message: inviteAccountsRefusal("invite") });
    expect(await accounts(`newcomer-${made}@example.com`)).toBe(0);
    expect(await db.query("select used_at, used_by_id from invites where id = $1", [created.invite.id])).toEqual([{ used_at: null, used_by_id: null }]);
    // Once the operator adopts the team (`rehook team adopt`), the same link lets a newcomer in: judged when used.
    await adoptTeam({ orm }, { slug: (await listTeams({ orm }, { userId: ownTeamOwner.userId })).find((team) => team.id === ownTeamOwner.teamId)!.slug });
    expect(await accounts(await signUpWith(mode, created.url))).toBe(1);
  });

  it("links from an operator's team's owner and admin, and from an admin of a team a server admin made, create accounts, which join that team", async () => {
    for (const inviter of [operatorOwner, operatorAdmin, adminTeamsAdmin]) {
      const created = await createInvite(context(mode), inviter, { role: "viewer" });
      expect(created.createsAccounts).toBe(true);
      const email = await signUpWith(mode, created.url);
      const user = (await db.query<{ id: string }>("select id from users where email = $1", [email]))[0]!;
      expect((await listTeams({ orm }, { userId: user.id })).find((team) => team.id === inviter.teamId)?.role).toBe("viewer");
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
