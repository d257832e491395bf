import { randomBytes } from "node:crypto";
import { describe, expect } from "vitest";
import { INVITE_TTL_MS, uuidv7, type Role, type SignupMode } from "@rehook/core";
import { addTeamMember, insertUser } from "@rehook/db";
import { acceptInvite, checkInvite, createInvite, createTeam, insertTeamNamed, listInvites, listTeams, revokeInvite, signUp, type Actor, type Services } from "@rehook/services";
import { changeMemberRole, removeMember } from "../src/teams.js";
import { expectRefused, PASSWORD, test } from "./support.js";

// Team invites: an admin invites with a role; the link works once, for 7 days; signed out it
// signs up (where SIGNUP lets its maker let newcomers in: invite-signup-rule.test.ts) and
// joins, signed in it adds the team. The clock is the services' own `now`, which the tests move.

const hex = () => randomBytes(4).toString("hex");
const tokenOf = (url: string) => new URL(url).searchParams.get("invite")!;

/** The services with a clock the test moves, starting at a fixed instant. */
function withClock(services: Services, signup: SignupMode = "open") {
  let now = Date.parse("2030-01-01T00:00:00Z");
  return {
    services: { ...services, signup, now: () => now } as Services,
    advance(ms: number) {
      now += ms;
    },
  };
}

interface Team {
  id: string;
  owner: Actor;
  admin: Actor & { email: string };
}

/** A new user (with a personal team) who is `role` in `teamId` (or in no team but their own). */
async function newUser(services: Services, teamId?: string, role?: Role): Promise<{ id: string; email: string; actor: Actor | null }> {
  const em = services.orm.em.fork();
  const email = `invitee-${hex()}@example.com`;
  const user = await insertUser(em, { id: uuidv7(), email, passwordHash: "unusable" });
  await insertTeamNamed(em, { name: email, ownerId: user.id, personal: true });
  if (teamId && role) await addTeamMember(em, teamId, user.id, role);
  return { id: user.id, email, actor: teamId && role ? { userId: user.id, teamId, role } : null };
}

async function teamWithAdmin(services: Services, ownerId: string): Promise<Team> {
  // As `rehook team create` makes it: under SIGNUP=invite its admins' links let newcomers in.
  const team = await createTeam(services, { userId: ownerId, name: `Invites ${hex()}`, byOperator: true });
  const admin = await newUser(services, team.id, "admin");
  return { id: team.id, owner: { userId: ownerId, teamId: team.id, role: "owner" }, admin: { ...admin.actor!, email: admin.email } };
}

async function roleIn(services: Services, teamId: string, userId: string): Promise<Role | null> {
  return (await listTeams(services, { userId })).find((team) => team.id === teamId)?.role ?? null;
}

describe("making invites", () => {
  test("an admin invites with a role, developer unless another is given; each lasts 7 days", async ({ services, user }) => {
    const clocked = withClock(services).services;
    const team = await teamWithAdmin(services, user.id);
    const plain = await createInvite(clocked, team.admin, {});
    const viewer = await createInvite(clocked, team.admin, { role: "viewer" });
    const admin = await createInvite(clocked, team.admin, { role: "admin" });
    const createdAt = Date.parse("2030-01-01T00:00:00Z");
    expect(INVITE_TTL_MS).toBe(7 * 24 * 3_600_000);
    expect(plain.invite).toMatchObject({ role: "developer", state: "open", createdBy: team.admin.email, usedBy: null, expiresAt: new Date(createdAt + INVITE_TTL_MS) });
    expect([viewer.invite.role, admin.invite.role]).toEqual(["viewer", "admin"]);
    expect(plain.url).toMatch(/^http:\/\/rehook\.test\/signup\?invite=/);

    const listed = await listInvites(clocked, { teamId: team.id });
    expect(listed.map((invite) => invite.id).sort()).toEqual([plain.invite.id, viewer.invite.id, admin.invite.id].sort());
    expect(await listInvites(clocked, { teamId: user.teamId })).toEqual([]);
  });

  test("a role above the inviter's own is refused, and nothing is stored", async ({ services, user }) => {
    const clocked = withClock(services).services;
    const team = await teamWithAdmin(services, user.id);
    await expectRefused(createInvite(clocked, team.admin, { role: "owner" }), "forbidden", /needs the owner role in this team; you are an admin/);
    const developer = await newUser(services, team.id, "developer");
    await expectRefused(createInvite(clocked, developer.actor!, { role: "admin" }), "forbidden", /needs the admin role/);
    await expectRefused(createInvite(clocked, team.admin, { role: "superuser" as Role }), "validation_failed");
    expect(await listInvites(clocked, { teamId: team.id })).toEqual([]);
    // An owner may invite another owner.
    expect((await createInvite(clocked, team.owner, { role: "owner" })).invite.role).toBe("owner");
  });
});

describe("using invites", () => {
  test("a link works once", async ({ services, user }) => {
    const clocked = withClock(services).services;
    const team = await teamWithAdmin(services, user.id);
    const { url, invite } = await createInvite(clocked, team.admin, { role: "viewer" });
    const first = await newUser(services);
    const second = await newUser(services);

    expect(await acceptInvite(clocked, { userId: first.id, token: tokenOf(url) })).toMatchObject({ teamId: team.id });
    expect(await roleIn(services, team.id, first.id)).toBe("viewer");
    await expectRefused(acceptInvite(clocked, { userId: second.id, token: tokenOf(url) }), "forbidden", /already been used/);
    expect(await roleIn(services, team.id, second.id)).toBeNull();
    expect((await listInvites(clocked, { teamId: team.id })).find((each) => each.id === invite.id)).toMatchObject({ state: "used", usedBy: first.email });
  });

  test("a link works for 7 days and not a millisecond more", async ({ services, user }) => {
    const clock = withClock(services);
    const team = await teamWithAdmin(services, user.id);
    const early = tokenOf((await createInvite(clock.services, team.admin, {})).url);
    const late = tokenOf((await createInvite(clock.services, team.admin, {})).url);
    const [justInTime, tooLate] = [await newUser(services), await newUser(services)];

    clock.advance(INVITE_TTL_MS - 1);
    expect(await checkInvite(clock.services, early)).toBe("open");
    await acceptInvite(clock.services, { userId: justInTime.id, token: early });
    expect(await roleIn(services, team.id, justInTime.id)).toBe("developer");

    clock.advance(1);
    expect(await checkInvite(clock.services, late)).toBe("expired");
    await expectRefused(acceptInvite(clock.services, { userId: tooLate.id, token: late }), "forbidden", /has expired/);
    expect(await roleIn(services, team.id, tooLate.id)).toBeNull();
  });

  test("a revoked link stops working at once", async ({ services, user }) => {
    const clocked = withClock(services).services;
    const team = await teamWithAdmin(services, user.id);
    const { url, invite } = await createInvite(clocked, team.admin, {});
    await revokeInvite(clocked, { teamId: team.id, inviteId: invite.id });
    const invitee = await newUser(services);
    await expectRefused(acceptInvite(clocked, { userId: invitee.id, token: tokenOf(url) }), "forbidden", /withdrawn/);
    expect(await roleIn(services, team.id, invitee.id)).toBeNull();
  });

  test.for(["closed", "invite", "open"] as const)("signing up with a link joins its team with its role (SIGNUP=%s; closed: a server admin's link)", async (mode, { services, user }) => {
    const clocked = withClock(services, mode).services;
    const team = await teamWithAdmin(services, user.id);
    // An address per mode: sign-ups are limited per address.
    const address = { closed: "192.0.2.11", invite: "192.0.2.12", open: "192.0.2.13" }[mode];
    if (mode === "closed") {
      // Even an operator's team's admin lets no newcomer in while sign-up is closed; a server admin does.
      const theirs = await createInvite(clocked, team.admin, { role: "viewer" });
      await expectRefused(signUp(clocked, { email: `refused-${hex()}@example.com`, password: PASSWORD, clientAddress: address, invite: tokenOf(theirs.url) }), "forbidden", /only an invite from a server admin/);
      await services.orm.em.fork().getConnection().execute("update users set is_admin = true where id = ?", [team.admin.userId]);
    }
    const { url } = await createInvite(clocked, team.admin, { role: "viewer" });
    const email = `signup-${hex()}@example.com`;

    const signed = await signUp(clocked, { email, password: PASSWORD, clientAddress: address, invite: tokenOf(url) });
    expect(signed.user.email).toBe(email);
    const teams = await listTeams(services, { userId: signed.user.id });
    expect(teams.map((each) => [each.id === team.id ? "invited" : each.personal ? "personal" : "other", each.role])).toEqual([
      ["personal", "owner"],
      ["invited", "viewer"],
    ]);
    if (mode !== "open") {
      await expectRefused(signUp(clocked, { email: `no-link-${hex()}@example.com`, password: PASSWORD, clientAddress: address }), "forbidden");
    }
  });

  test("opened while signed in, a link adds its team", async ({ services, user, other }) => {
    const clocked = withClock(services).services;
    const team = await teamWithAdmin(services, user.id);
    const { url } = await createInvite(clocked, team.admin, { role: "developer" });
    const joined = await acceptInvite(clocked, { userId: other.id, token: tokenOf(url) });
    const listed = (await listTeams(services, { userId: other.id })).find((each) => each.id === team.id);
    expect(joined).toEqual({ teamId: team.id, name: listed?.name, slug: listed?.slug });
    expect(listed?.role).toBe("developer");
  });

  test("a removed admin's open links stop working: they cannot let themselves back in", async ({ services, user }) => {
    const clocked = withClock(services).services;
    const team = await teamWithAdmin(services, user.id);
    const backdoor = await createInvite(clocked, team.admin, { role: "admin" });
    const othersLink = await createInvite(clocked, team.owner, { role: "viewer" });
    await removeMember(services, team.owner, { userId: team.admin.userId });

    await expectRefused(acceptInvite(clocked, { userId: team.admin.userId, token: tokenOf(backdoor.url) }), "forbidden", /withdrawn/);
    expect(await roleIn(services, team.id, team.admin.userId)).toBeNull();
    expect(await checkInvite(clocked, tokenOf(othersLink.url))).toBe("open");
  });

  test("a demoted admin's links for a role they no longer hold are withdrawn; the others stay open", async ({ services, user }) => {
    const clocked = withClock(services).services;
    const team = await teamWithAdmin(services, user.id);
    const adminLink = await createInvite(clocked, team.admin, { role: "admin" });
    const developerLink = await createInvite(clocked, team.admin, { role: "developer" });
    await changeMemberRole(services, team.owner, { userId: team.admin.userId, role: "developer" });

    expect(await checkInvite(clocked, tokenOf(adminLink.url))).toBe("revoked");
    expect(await checkInvite(clocked, tokenOf(developerLink.url))).toBe("open");
  });

  test("a link for a stronger role upgrades a member; a weaker one does not downgrade", async ({ services, user }) => {
    const clocked = withClock(services).services;
    const team = await teamWithAdmin(services, user.id);
    const viewer = await newUser(services, team.id, "viewer");
    const admin = await newUser(services, team.id, "admin");

    await acceptInvite(clocked, { userId: viewer.id, token: tokenOf((await createInvite(clocked, team.admin, { role: "admin" })).url) });
    expect(await roleIn(services, team.id, viewer.id)).toBe("admin");
    const weaker = await createInvite(clocked, team.admin, { role: "viewer" });
    await acceptInvite(clocked, { userId: admin.id, token: tokenOf(weaker.url) });
    expect(await roleIn(services, team.id, admin.id)).toBe("admin");
    expect(await checkInvite(clocked, tokenOf(weaker.url))).toBe("used");
  });
});
