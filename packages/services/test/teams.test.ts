import { randomBytes } from "node:crypto";
import { describe, expect } from "vitest";
import { uuidv7, type Role } from "@rehook/core";
import { addTeamMember, insertUser } from "@rehook/db";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { actorFor, createApiKey, createEndpoint, createInvite, createTeam, insertTeamNamed, listMembers, listTeams, type Actor, type Services } from "@rehook/services";
import { changeMemberRole, deleteTeam, leaveTeam, removeMember } from "../src/teams.js";
import { capture, expectRefused, test } from "./support.js";

// Teams as their use cases see them: who owns a new team and what it is called, which team a
// request acts in, the roles members hold and the rule that a team keeps an owner.

const hex = () => randomBytes(4).toString("hex");

interface Member {
  id: string;
  email: string;
  actor: Actor;
  /** Their own personal team (they own it). */
  personalTeamId: string;
}

/** A new user with a personal team of their own, added to `teamId` with `role`. */
async function newMember(services: Services, teamId: string, role: Role): Promise<Member> {
  const em = services.orm.em.fork();
  const email = `${role}-${hex()}@example.com`;
  const user = await insertUser(em, { id: uuidv7(), email, passwordHash: "unusable" });
  const personal = await insertTeamNamed(em, { name: email, ownerId: user.id, personal: true });
  await addTeamMember(em, teamId, user.id, role);
  return { id: user.id, email, actor: { userId: user.id, teamId, role }, personalTeamId: personal.id };
}

async function roleIn(services: Services, teamId: string, userId: string): Promise<string | null> {
  const rows = await services.orm.em.getConnection().execute<Array<{ role: string }>>("select role from team_members where team_id = ? and user_id = ?", [teamId, userId]);
  return rows[0]?.role ?? null;
}

/** A team owned by `ownerId`, and the owner acting in it. */
async function sharedTeam(services: Services, ownerId: string): Promise<{ teamId: string; slug: string; owner: Actor }> {
  const team = await createTeam(services, { userId: ownerId, name: `Shared ${hex()}` });
  return { teamId: team.id, slug: team.slug, owner: { userId: ownerId, teamId: team.id, role: "owner" } };
}

describe("createTeam", () => {
  test("makes its creator the owner, with a slug from the name; a taken slug gets a suffix", async ({ services, user, other }) => {
    const word = hex();
    const team = await createTeam(services, { userId: user.id, name: `  Payments ${word} ` });
    expect(team).toMatchObject({ name: `Payments ${word}`, slug: `payments-${word}`, role: "owner", personal: false });
    expect(await listMembers(services, { teamId: team.id })).toMatchObject([{ userId: user.id, email: user.email, role: "owner", activeKeys: 0 }]);

    const namesake = await createTeam(services, { userId: other.id, name: `Payments ${word}` });
    expect(namesake.slug).toMatch(new RegExp(`^payments-${word}-[a-z0-9]{6}$`));
    expect(namesake.role).toBe("owner");
    await expectRefused(createTeam(services, { userId: user.id, name: "   " }), "validation_failed", /name/);
  });
});

describe("listTeams", () => {
  test("answers the personal team first, then the others by name, with the role in each", async ({ services, user, other }) => {
    const word = hex();
    const zeta = await createTeam(services, { userId: user.id, name: `Zeta ${word}` });
    const alpha = await createTeam(services, { userId: user.id, name: `alpha ${word}` });
    const elsewhere = await sharedTeam(services, other.id);
    await addTeamMember(services.orm.em.fork(), elsewhere.teamId, user.id, "viewer");

    const teams = await listTeams(services, { userId: user.id });
    expect(teams.map((team) => team.id)).toEqual([user.teamId, alpha.id, elsewhere.teamId, zeta.id]);
    expect(teams.map((team) => [team.personal, team.role])).toEqual([
      [true, "owner"],
      [false, "owner"],
      [false, "viewer"],
      [false, "owner"],
    ]);
  });
});

describe("actorFor", () => {
  test("acts in the chosen team while the user is a member of it, with their role there", async ({ services, user, other }) => {
    const team = await sharedTeam(services, other.id);
    await addTeamMember(services.orm.em.fork(), team.teamId, user.id, "developer");
    const chosen = await actorFor(services, { userId: user.id, teamId: team.teamId });
    expect(chosen.actor).toEqual({ userId: user.id, teamId: team.teamId, role: "developer" });
    expect(chosen.team).toMatchObject({ id: team.teamId, slug: team.slug, personal: false });
  });

  test("falls back to the personal team for a team the user is not in, or no choice, or a malformed one", async ({ services, user, other }) => {
    for (const teamId of [other.teamId, undefined, null, "not-a-team"]) {
      const { actor, team } = await actorFor(services, { userId: user.id, teamId });
      expect(actor, String(teamId)).toEqual({ userId: user.id, teamId: user.teamId, role: "owner" });
      expect(team.personal).toBe(true);
    }
  });

  test("falls back to the first team when the user has no personal team", async ({ services, other }) => {
    const team = await sharedTeam(services, other.id);
    const user = await insertUser(services.orm.em.fork(), { id: uuidv7(), email: `joiner-${hex()}@example.com`, passwordHash: "unusable" });
    await addTeamMember(services.orm.em.fork(), team.teamId, user.id, "viewer");
    const { actor } = await actorFor(services, { userId: user.id });
    expect(actor).toEqual({ userId: user.id, teamId: team.teamId, role: "viewer" });
    expect(await listTeams(services, { userId: user.id })).toHaveLength(1);
  });

  test("makes a new personal team, named after the email, for a user in no team, once", async ({ services }) => {
    const local = `left.everything-${hex()}`;
    const user = await insertUser(services.orm.em.fork(), { id: uuidv7(), email: `${local}@example.com`, passwordHash: "unusable" });
    expect(await listTeams(services, { userId: user.id })).toEqual([]);

    const first = await actorFor(services, { userId: user.id });
    expect(first.team).toMatchObject({ name: local, slug: local.replace(".", "-"), role: "owner", personal: true });
    expect(first.actor).toEqual({ userId: user.id, teamId: first.team.id, role: "owner" });
    const again = await actorFor(services, { userId: user.id });
    expect(again.team.id).toBe(first.team.id);
    expect(await listTeams(services, { userId: user.id })).toHaveLength(1);
  });
});

describe("changeMemberRole", () => {
  test("an admin changes roles below owner, but neither makes nor unmakes an owner", async ({ services, user }) => {
    const team = await sharedTeam(services, user.id);
    const admin = await newMember(services, team.teamId, "admin");
    const developer = await newMember(services, team.teamId, "developer");

    await changeMemberRole(services, admin.actor, { userId: developer.id, role: "viewer" });
    expect(await roleIn(services, team.teamId, developer.id)).toBe("viewer");
    await expectRefused(changeMemberRole(services, admin.actor, { userId: developer.id, role: "owner" }), "forbidden", /needs the owner role/);
    expect(await roleIn(services, team.teamId, developer.id)).toBe("viewer");

    await changeMemberRole(services, team.owner, { userId: developer.id, role: "owner" });
    expect(await roleIn(services, team.teamId, developer.id)).toBe("owner");
    await expectRefused(changeMemberRole(services, admin.actor, { userId: developer.id, role: "developer" }), "forbidden", /needs the owner role/);
    await expectRefused(changeMemberRole(services, admin.actor, { userId: user.id, role: "admin" }), "forbidden", /needs the owner role/);
    expect(await roleIn(services, team.teamId, developer.id)).toBe("owner");
    expect(await roleIn(services, team.teamId, user.id)).toBe("owner");
  });

  test("the last owner cannot be demoted; with a second owner they can be", async ({ services, user }) => {
    const team = await sharedTeam(services, user.id);
    const admin = await newMember(services, team.teamId, "admin");
    await expectRefused(changeMemberRole(services, team.owner, { userId: user.id, role: "admin" }), "conflict", /at least one owner/);
    expect(await roleIn(services, team.teamId, user.id)).toBe("owner");

    await changeMemberRole(services, team.owner, { userId: admin.id, role: "owner" });
    await changeMemberRole(services, team.owner, { userId: user.id, role: "admin" });
    expect(await roleIn(services, team.teamId, user.id)).toBe("admin");
    await expectRefused(changeMemberRole(services, { ...admin.actor, role: "owner" }, { userId: admin.id, role: "developer" }), "conflict", /at least one owner/);
  });

  test("answers not_found for a user who is not a member", async ({ services, user, other }) => {
    const team = await sharedTeam(services, user.id);
    await expectRefused(changeMemberRole(services, team.owner, { userId: other.id, role: "viewer" }), "not_found");
    expect(await roleIn(services, team.teamId, other.id)).toBeNull();
  });
});

describe("removeMember", () => {
  test("revokes the keys the member made for this team only, and says how many", async ({ services, user }) => {
    const team = await sharedTeam(services, user.id);
    const admin = await newMember(services, team.teamId, "admin");
    const developer = await newMember(services, team.teamId, "developer");
    const inTeam = [await createApiKey(services, developer.actor, { name: "ci" }), await createApiKey(services, developer.actor, { name: "laptop" })];
    const ownersKey = await createApiKey(services, team.owner, { name: "owner's" });
    const personal = await createApiKey(services, { userId: developer.id, teamId: developer.personalTeamId, role: "owner" }, { name: "mine" });
    expect((await listMembers(services, { teamId: team.teamId })).find((member) => member.userId === developer.id)?.activeKeys).toBe(2);

    expect(await removeMember(services, admin.actor, { userId: developer.id })).toEqual({ revokedKeys: 2 });
    expect(await roleIn(services, team.teamId, developer.id)).toBeNull();
    expect((await listTeams(services, { userId: developer.id })).map((each) => each.id)).toEqual([developer.personalTeamId]);
    const revoked = await services.orm.em
      .getConnection()
      .execute<Array<{ id: string; revoked: boolean }>>("select id, revoked_at is not null as revoked from api_keys where id = any(?::uuid[])", [
        `{${[...inTeam.map((key) => key.apiKey.id), ownersKey.apiKey.id, personal.apiKey.id].join(",")}}`,
      ]);
    expect(Object.fromEntries(revoked.map((row) => [row.id, row.revoked]))).toEqual({
      [inTeam[0]!.apiKey.id]: true,
      [inTeam[1]!.apiKey.id]: true,
      [ownersKey.apiKey.id]: false,
      [personal.apiKey.id]: false,
    });
  });

  test("an admin cannot remove an owner, and the last owner cannot be removed", async ({ services, user }) => {
    const team = await sharedTeam(services, user.id);
    const admin = await newMember(services, team.teamId, "admin");
    await expectRefused(removeMember(services, admin.actor, { userId: user.id }), "forbidden", /needs the owner role/);
    await expectRefused(removeMember(services, team.owner, { userId: user.id }), "conflict", /at least one owner/);
    expect(await roleIn(services, team.teamId, user.id)).toBe("owner");
    await expectRefused(removeMember(services, team.owner, { userId: uuidv7() }), "not_found");

    await changeMemberRole(services, team.owner, { userId: admin.id, role: "owner" });
    expect(await removeMember(services, { ...admin.actor, role: "owner" }, { userId: user.id })).toEqual({ revokedKeys: 0 });
    expect(await roleIn(services, team.teamId, user.id)).toBeNull();
  });
});

describe("leaveTeam", () => {
  test("any member leaves (their keys for the team revoked); the last owner cannot", async ({ services, user }) => {
    const team = await sharedTeam(services, user.id);
    const viewer = await newMember(services, team.teamId, "viewer");
    const developer = await newMember(services, team.teamId, "developer");
    await createApiKey(services, developer.actor, { name: "ci" });

    expect(await leaveTeam(services, viewer.actor)).toEqual({ revokedKeys: 0 });
    expect(await leaveTeam(services, developer.actor)).toEqual({ revokedKeys: 1 });
    expect((await listTeams(services, { userId: developer.id })).map((each) => each.id)).toEqual([developer.personalTeamId]);
    await expectRefused(leaveTeam(services, team.owner), "conflict", /at least one owner/);
    expect((await listMembers(services, { teamId: team.teamId })).map((member) => member.userId)).toEqual([user.id]);
  });

  test("an owner leaves when another owner stays", async ({ services, user }) => {
    const team = await sharedTeam(services, user.id);
    const second = await newMember(services, team.teamId, "owner");
    await leaveTeam(services, second.actor);
    expect((await listMembers(services, { teamId: team.teamId })).map((member) => [member.userId, member.role])).toEqual([[user.id, "owner"]]);
  });
});

describe("deleteTeam", () => {
  test("takes the team's endpoints (their events purged by a job), keys, invites and members with it", async ({ services, user }) => {
    const team = await sharedTeam(services, user.id);
    const developer = await newMember(services, team.teamId, "developer");
    const endpoint = await createEndpoint(services, { teamId: team.teamId, name: "doomed" });
    const eventId = await capture(services, endpoint.slug, '{"doomed":true}');
    await createApiKey(services, developer.actor, { name: "ci" });
    await createInvite(services, team.owner, {});
    const kept = await createEndpoint(services, { teamId: user.teamId, name: "kept" });
    const keptEvent = await capture(services, kept.slug, '{"kept":true}');

    await deleteTeam(services, { teamId: team.teamId });

    const sql = services.orm.em.getConnection();
    const count = async (query: string, params: unknown[]) => Number((await sql.execute<Array<{ n: string }>>(`select count(*) as n from ${query}`, params))[0]!.n);
    expect(await count("teams where id = ?", [team.teamId])).toBe(0);
    expect(await count("endpoints where team_id = ?", [team.teamId])).toBe(0);
    expect(await count("team_members where team_id = ?", [team.teamId])).toBe(0);
    expect(await count("api_keys where team_id = ?", [team.teamId])).toBe(0);
    expect(await count("invites where team_id = ?", [team.teamId])).toBe(0);
    await waitFor(async () => (await count("events where id = ?", [eventId])) === 0, "the deleted team's events to be purged");
    expect(await count("events where id = ?", [keptEvent])).toBe(1);
    expect((await listTeams(services, { userId: developer.id })).map((each) => each.id)).toEqual([developer.personalTeamId]);
    expect((await listTeams(services, { userId: user.id })).map((each) => each.id)).toEqual([user.teamId]);
  });
});

describe("last activity", () => {
  test("opening a team records the member's activity at most once a minute", async ({ services, user }) => {
    const team = await sharedTeam(services, user.id);
    const developer = await newMember(services, team.teamId, "developer");
    const sql = services.orm.em.getConnection();
    // Milliseconds since the epoch, as the database has them (the column keeps milliseconds).
    const lastActive = async () => {
      const [row] = await sql.execute<Array<{ ms: string | null }>>(
        "select (extract(epoch from last_active_at) * 1000)::bigint::text as ms from team_members where team_id = ? and user_id = ?",
        [team.teamId, developer.id],
      );
      return row!.ms === null ? null : Number(row!.ms);
    };
    const shift = (seconds: number) =>
      sql.execute("update team_members set last_active_at = last_active_at - make_interval(secs => ?) where team_id = ? and user_id = ?", [seconds, team.teamId, developer.id]);
    const open = () => actorFor(services, { userId: developer.id, teamId: team.teamId });

    expect(await lastActive()).toBeNull();
    await open();
    const first = await lastActive();
    expect(first).not.toBeNull();
    await open();
    expect(await lastActive()).toBe(first);

    // 30 s ago: still within the minute, so no write.
    await shift(30);
    const recent = await lastActive();
    expect(recent).toBe(first! - 30_000);
    await open();
    expect(await lastActive()).toBe(recent);

    // Over a minute ago: written again, later than the value it replaces and than the first.
    await shift(31);
    const stale = await lastActive();
    await open();
    const touched = await lastActive();
    expect(touched).toBeGreaterThan(stale!);
    expect(touched).toBeGreaterThanOrEqual(first!);
    expect((await listMembers(services, { teamId: team.teamId })).find((member) => member.userId === developer.id)?.lastActiveAt?.getTime()).toBe(touched);
  });
});
