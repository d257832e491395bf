import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INVITE_TTL_MS, type SignupMode } from "@rehook/core";
import { AttemptLimiter, createSessionManager, LoginThrottle } from "@rehook/auth";
import { createOrm, type Orm } from "@rehook/db";
import { createTestDatabase, type TestDatabase } from "../../../tooling/vitest/src/postgres.js";
import {
  acceptInvite,
  actorFor,
  checkInvite,
  createInvite,
  createUser,
  listInvites,
  listTeams,
  revokeInvite,
  runContract,
  settingsContracts,
  signUp,
  type Actor,
  type ServiceContext,
  type Services,
} from "../src/index.js";

// Sign-up as SIGNUP says, against a real PostgreSQL, with a clock the test moves: invites
// work once, expire after INVITE_TTL_MS, can be revoked, and only a team's admins (and
// owners) make them, for their team: being the server's first user (users.is_admin) does not matter.

let db: TestDatabase;
let orm: Orm;
let now = Date.parse("2030-01-01T00:00:00Z");
let adminId: string;
/** The first user in their personal team, which they own. */
let admin: Actor;

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
const password = "a long enough password";
const tokenOf = (url: string) => new URL(url).searchParams.get("invite")!;

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await createOrm({ databaseUrl: db.url, poolSize: 2 });
  adminId = (await createUser({ orm }, { email: "first@example.com", password })).id;
  admin = (await actorFor({ orm }, { userId: adminId })).actor;
});
afterAll(async () => {
  await orm.close(true);
  await db.drop();
});

describe("sign-up modes", () => {
  it("makes the first user an admin, and no later one unless asked; a team's role, not that flag, decides who invites", async () => {
    expect((await db.query<{ is_admin: boolean }>("select is_admin from users where id = $1", [adminId]))[0]!.is_admin).toBe(true);
    const second = await createUser({ orm }, { email: "second@example.com", password });
    expect(second.isAdmin).toBe(false);
    // Not the server's admin, but the owner of their own team: they invite to it.
    const own = await actorFor({ orm }, { userId: second.id });
    expect((await createInvite(context("invite"), own.actor, {})).invite).toMatchObject({ state: "open", role: "developer", createdBy: "second@example.com" });
    // A developer of the first user's team may not (the contract asks for admin), nor invite above their own role.
    const joined = await acceptInvite(context("invite"), { userId: second.id, token: tokenOf((await createInvite(context("invite"), admin, { role: "developer" })).url) });
    expect(joined.teamId).toBe(admin.teamId);
    const developer = (await actorFor({ orm }, { userId: second.id, teamId: admin.teamId })).actor;
    expect(developer.role).toBe("developer");
    await expect(runContract(settingsContracts.createInviteContract, context("invite") as unknown as Services, developer, {})).rejects.toMatchObject({
      code: "forbidden",
      message: expect.stringMatching(/needs the admin role in this team; you are a developer/),
    });
    await expect(createInvite(context("invite"), developer, { role: "admin" })).rejects.toMatchObject({ code: "forbidden" });
  });

  it("closed: refuses every sign-up, saying how to get an account", async () => {
    await expect(signUp(context("closed"), { email: "x@example.com", password, clientAddress: null })).rejects.toThrow(/Sign-up is closed.*rehook user create/);
    expect(await db.query("select 1 from users where email = 'x@example.com'")).toEqual([]);
  });

  it("invite: needs a link, takes it once, and says why a used one fails", async () => {
    const ctx = context("invite");
    await expect(signUp(ctx, { email: "y@example.com", password, clientAddress: null })).rejects.toThrow(/by invitation/);
    const { url, invite } = await createInvite(ctx, admin, {});
    expect(invite).toMatchObject({ state: "open", role: "developer", expiresAt: new Date(now + INVITE_TTL_MS) });
    const token = tokenOf(url);
    expect(await checkInvite(ctx, token)).toBe("open");

    const signed = await signUp(ctx, { email: "y@example.com", password, clientAddress: null, invite: token });
    expect(signed.user.email).toBe("y@example.com");
    // They joined the inviting team with the invite's role, besides their own personal team.
    expect((await listTeams({ orm }, { userId: signed.user.id })).map((team) => [team.id === admin.teamId, team.role])).toEqual([
      [false, "owner"],
      [true, "developer"],
    ]);
    await expect(signUp(ctx, { email: "z@example.com", password, clientAddress: null, invite: token })).rejects.toThrow(/already been used/);
    expect(await checkInvite(ctx, token)).toBe("used");
    expect((await listInvites(ctx, { teamId: admin.teamId }))[0]).toMatchObject({ id: invite.id, state: "used", usedBy: "y@example.com" });
  });

  it("invite: a refused sign-up (email taken) leaves the invite unused", async () => {
    const ctx = context("invite");
    const token = tokenOf((await createInvite(ctx, admin, {})).url);
    await expect(signUp(ctx, { email: "y@example.com", password, clientAddress: null, invite: token })).rejects.toThrow(/already exists/);
    expect(await checkInvite(ctx, token)).toBe("open");
  });

  it("invite: an expired or revoked link is refused with its reason, a made-up one too", async () => {
    const ctx = context("invite");
    const expiring = tokenOf((await createInvite(ctx, admin, {})).url);
    const revoked = await createInvite(ctx, admin, {});
    await revokeInvite(ctx, { teamId: admin.teamId, inviteId: revoked.invite.id });
    await expect(revokeInvite(ctx, { teamId: admin.teamId, inviteId: revoked.invite.id })).rejects.toThrow(/no longer exists or has been used/);

    now += INVITE_TTL_MS;
    expect(await checkInvite(ctx, expiring)).toBe("expired");
    await expect(signUp(ctx, { email: "late@example.com", password, clientAddress: null, invite: expiring })).rejects.toThrow(/has expired/);
    await expect(signUp(ctx, { email: "late@example.com", password, clientAddress: null, invite: tokenOf(revoked.url) })).rejects.toThrow(/withdrawn/);
    await expect(signUp(ctx, { email: "late@example.com", password, clientAddress: null, invite: "x".repeat(32) })).rejects.toThrow(/not valid/);
    expect(await db.query("select 1 from users where email = 'late@example.com'")).toEqual([]);
  });

  it("open: anyone may sign up, an invite or not", async () => {
    const signed = await signUp(context("open"), { email: "open@example.com", password, clientAddress: null });
    expect(signed.user.email).toBe("open@example.com");
  });
});
