import { randomBytes } from "node:crypto";
import { describe, expect } from "vitest";
import { uuidv7, type Role } from "@rehook/core";
import { addTeamMember, insertUser } from "@rehook/db";
import { authenticateApiKey, createApiKey, createTeam, listApiKeys, revokeApiKey, type Actor, type Services } from "@rehook/services";
import { changeMemberRole, leaveTeam, removeMember } from "../src/teams.js";
import { expectRefused, test } from "./support.js";

// API keys belong to a team and carry a role, at most their creator's: a key acts with the
// weaker of its own role and its creator's role now, and stops when its creator leaves.

const hex = () => randomBytes(4).toString("hex");
const bearer = (key: string) => `Bearer ${key}`;

interface Team {
  id: string;
  owner: Actor;
  /** Adds a new user to the team with this role. */
  add(role: Role): Promise<Actor & { email: string }>;
}

async function newTeam(services: Services, ownerId: string): Promise<Team> {
  const team = await createTeam(services, { userId: ownerId, name: `Keys ${hex()}` });
  return {
    id: team.id,
    owner: { userId: ownerId, teamId: team.id, role: "owner" },
    async add(role) {
      const email = `${role}-${hex()}@example.com`;
      const user = await insertUser(services.orm.em.fork(), { id: uuidv7(), email, passwordHash: "unusable" });
      await addTeamMember(services.orm.em.fork(), team.id, user.id, role);
      return { userId: user.id, teamId: team.id, role, email };
    },
  };
}

describe("team API keys", () => {
  test("belong to the team and carry a role, developer unless another is given", async ({ services, user }) => {
    const team = await newTeam(services, user.id);
    const { key, apiKey } = await createApiKey(services, team.owner, { name: "ci" });
    expect(apiKey).toMatchObject({ name: "ci", role: "developer", createdBy: user.email, lastUsedAt: null, revokedAt: null });
    expect(await authenticateApiKey(services, bearer(key))).toEqual({ userId: user.id, teamId: team.id, role: "developer", keyId: apiKey.id, prefix: apiKey.prefix });
    expect((await listApiKeys(services, { teamId: team.id })).map((each) => each.id)).toEqual([apiKey.id]);
    expect((await listApiKeys(services, { teamId: user.teamId })).map((each) => each.id)).not.toContain(apiKey.id);
  });

  test("a developer makes developer and viewer keys but not admin ones; an admin makes admin keys", async ({ services, user }) => {
    const team = await newTeam(services, user.id);
    const developer = await team.add("developer");
    const admin = await team.add("admin");
    await expectRefused(createApiKey(services, developer, { name: "too strong", role: "admin" }), "forbidden", /at most its creator's role: you are a developer, so choose viewer or developer/);
    expect((await createApiKey(services, developer, { name: "read only", role: "viewer" })).apiKey.role).toBe("viewer");
    const adminKey = await createApiKey(services, admin, { name: "admin", role: "admin" });
    expect((await authenticateApiKey(services, bearer(adminKey.key)))?.role).toBe("admin");
    await expectRefused(createApiKey(services, admin, { name: "too strong", role: "owner" }), "forbidden");
    expect((await listApiKeys(services, { teamId: team.id })).map((each) => each.name).sort()).toEqual(["admin", "read only"]);
  });

  test("act with the weaker of their role and their creator's role now", async ({ services, user }) => {
    const team = await newTeam(services, user.id);
    const admin = await team.add("admin");
    const { key } = await createApiKey(services, admin, { name: "admin", role: "admin" });
    expect((await authenticateApiKey(services, bearer(key)))?.role).toBe("admin");

    await changeMemberRole(services, team.owner, { userId: admin.userId, role: "developer" });
    expect((await authenticateApiKey(services, bearer(key)))?.role).toBe("developer");
    // Whatever the key's row says, the creator's role at the time of the request bounds it.
    await services.orm.em.getConnection().execute("update team_members set role = 'viewer' where team_id = ? and user_id = ?", [team.id, admin.userId]);
    expect((await authenticateApiKey(services, bearer(key)))?.role).toBe("viewer");
  });

  test("stop working when their creator is removed or leaves", async ({ services, user }) => {
    const team = await newTeam(services, user.id);
    const [removed, leaving] = [await team.add("developer"), await team.add("developer")];
    const removedKey = await createApiKey(services, removed, { name: "removed's" });
    const leavingKey = await createApiKey(services, leaving, { name: "leaver's" });
    const ownersKey = await createApiKey(services, team.owner, { name: "owner's" });

    expect(await removeMember(services, team.owner, { userId: removed.userId })).toEqual({ revokedKeys: 1 });
    expect(await authenticateApiKey(services, bearer(removedKey.key))).toBeNull();
    expect(await leaveTeam(services, leaving)).toEqual({ revokedKeys: 1 });
    expect(await authenticateApiKey(services, bearer(leavingKey.key))).toBeNull();
    expect(await authenticateApiKey(services, bearer(ownersKey.key))).not.toBeNull();
    // Rejoining does not bring a revoked key back.
    await addTeamMember(services.orm.em.fork(), team.id, removed.userId, "developer");
    expect(await authenticateApiKey(services, bearer(removedKey.key))).toBeNull();
  });

  test("are listed with their creator's email, role and when they were last used", async ({ services, user }) => {
    const team = await newTeam(services, user.id);
    const developer = await team.add("developer");
    const admin = await team.add("admin");
    const used = await createApiKey(services, developer, { name: "used", role: "viewer" });
    await createApiKey(services, admin, { name: "idle", role: "admin" });
    await authenticateApiKey(services, bearer(used.key));

    const listed = await listApiKeys(services, { teamId: team.id });
    expect(listed.map(({ name, role, createdBy }) => ({ name, role, createdBy }))).toEqual([
      { name: "idle", role: "admin", createdBy: admin.email },
      { name: "used", role: "viewer", createdBy: developer.email },
    ]);
    expect(listed.find((each) => each.name === "used")?.lastUsedAt).toBeInstanceOf(Date);
    expect(listed.find((each) => each.name === "idle")?.lastUsedAt).toBeNull();
    expect(JSON.stringify(listed)).not.toContain(used.key);
  });

  test("a developer revokes developer and viewer keys but not an admin's key; an admin does", async ({ services, user, other }) => {
    const team = await newTeam(services, user.id);
    const developer = await team.add("developer");
    const admin = await team.add("admin");
    const adminKey = await createApiKey(services, admin, { name: "admin", role: "admin" });
    const viewerKey = await createApiKey(services, admin, { name: "viewer", role: "viewer" });

    await expectRefused(revokeApiKey(services, developer, { keyId: adminKey.apiKey.id }), "forbidden", /needs the admin role/);
    expect(await authenticateApiKey(services, bearer(adminKey.key))).not.toBeNull();
    await revokeApiKey(services, developer, { keyId: viewerKey.apiKey.id });
    expect(await authenticateApiKey(services, bearer(viewerKey.key))).toBeNull();
    await revokeApiKey(services, admin, { keyId: adminKey.apiKey.id });
    expect(await authenticateApiKey(services, bearer(adminKey.key))).toBeNull();

    // Another team's key answers as missing, and keeps working.
    const foreign = await createApiKey(services, other.actor, { name: "theirs" });
    await expectRefused(revokeApiKey(services, { ...admin, role: "owner" }, { keyId: foreign.apiKey.id }), "not_found");
    expect(await authenticateApiKey(services, bearer(foreign.key))).not.toBeNull();
  });
});
