import type { EntityManager } from "@mikro-orm/postgresql";
import { TeamEntity, type StoredRole, type Team } from "../entities/index.js";
import { insertingInto } from "../duplicate-row.js";
import { enqueueJobWith } from "../jobs/queue.js";
import { BUS_CHANNEL } from "../event-bus.js";
import { ENDPOINT_PURGE_JOB } from "./endpoints.js";

/** A role's rank in SQL, weakest first (the order of ROLES in @rehook/core). */
function rankOf(role: string): string {
  return `array_position(array['viewer', 'developer', 'admin', 'owner'], ${role})`;
}

/** A team as one of its members sees it. */
export interface TeamMembership {
  id: string;
  name: string;
  slug: string;
  role: StoredRole;
  personal: boolean;
}

/** Inserts a team and its first owner in one transaction (a duplicate slug throws DuplicateRowError). */
export async function insertTeam(
  em: EntityManager,
  team: { id: string; name: string; slug: string; ownerId: string; personal: boolean; madeByOperator?: boolean },
): Promise<Team> {
  return em.transactional(async (tx) => {
    const row = tx.create(TeamEntity, {
      id: team.id,
      name: team.name,
      slug: team.slug,
      personalOf: team.personal ? team.ownerId : null,
      madeByOperator: !team.personal && team.madeByOperator === true,
      createdAt: new Date(),
    });
    await insertingInto("teams", () => tx.persistAndFlush(row));
    await tx.execute("insert into team_members (team_id, user_id, role) values (?, ?, 'owner')", [team.id, team.ownerId]);
    return row;
  });
}

/** The user's teams: their personal team first, then by name. */
export async function teamsOfUser(em: EntityManager, userId: string): Promise<TeamMembership[]> {
  const rows = await em.execute<Array<{ id: string; name: string; slug: string; role: StoredRole; personal: boolean }>>(
    `select t.id, t.name, t.slug, m.role, t.personal_of_id is not distinct from m.user_id as personal
       from team_members m join teams t on t.id = m.team_id
      where m.user_id = ? order by personal desc, lower(t.name), t.id`,
    [userId],
  );
  return rows;
}

/**
 * The user's membership of a team (null: not a member), read on every dashboard request;
 * it records the member's last activity at most once a minute, so reading costs no write.
 */
export async function membershipOf(em: EntityManager, userId: string, teamRef: { id: string } | { slug: string }): Promise<TeamMembership | null> {
  const byId = "id" in teamRef;
  if (byId && !/^[0-9a-f-]{36}$/i.test(teamRef.id)) return null;
  const rows = await em.execute<Array<{ id: string; name: string; slug: string; role: StoredRole; personal: boolean; stale: boolean }>>(
    `select t.id, t.name, t.slug, m.role, t.personal_of_id is not distinct from m.user_id as personal,
            (m.last_active_at is null or m.last_active_at < now() - interval '1 minute') as stale
       from team_members m join teams t on t.id = m.team_id
      where m.user_id = ? and ${byId ? "t.id = ?" : "t.slug = ?"}`,
    [userId, byId ? teamRef.id : teamRef.slug],
  );
  const row = rows[0];
  if (!row) return null;
  if (row.stale) await touchMember(em, row.id, userId);
  return { id: row.id, name: row.name, slug: row.slug, role: row.role, personal: row.personal };
}

async function touchMember(em: EntityManager, teamId: string, userId: string): Promise<void> {
  await em.execute(
      "update team_members set last_active_at = now() where team_id = ? and user_id = ? and (last_active_at is null or last_active_at < now() - interval '1 minute')",
      [teamId, userId],
    );
}

export async function findTeamBySlug(em: EntityManager, slug: string): Promise<Team | null> {
  return em.findOne(TeamEntity, { slug });
}

/** Marks a shared team as an operator's (`rehook team adopt`); false when there is no shared team with this slug. */
export async function markTeamMadeByOperator(em: EntityManager, slug: string): Promise<boolean> {
  return (await em.nativeUpdate(TeamEntity, { slug, personalOf: null }, { madeByOperator: true })) > 0;
}

export async function findTeamById(em: EntityManager, id: string): Promise<Team | null> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return null;
  return em.findOne(TeamEntity, { id });
}

export interface TeamMemberRow {
  userId: string;
  email: string;
  role: StoredRole;
  joinedAt: Date;
  lastActiveAt: Date | null;
  /** Active API keys this member made for the team. */
  activeKeys: number;
}

/** The team's members, owners first, then by email, each with the active keys they made for it. */
export async function listTeamMembers(em: EntityManager, teamId: string): Promise<TeamMemberRow[]> {
  const rows = await em.execute<Array<{ user_id: string; email: string; role: StoredRole; created_at: Date; last_active_at: Date | null; active_keys: string }>>(
      `select m.user_id, u.email, m.role, m.created_at, m.last_active_at,
              (select count(*) from api_keys k where k.team_id = m.team_id and k.user_id = m.user_id and k.revoked_at is null) as active_keys
         from team_members m join users u on u.id = m.user_id
        where m.team_id = ?
        order by ${rankOf("m.role")} desc, u.email`,
      [teamId],
    );
  return rows.map((row) => ({
    userId: row.user_id,
    email: row.email,
    role: row.role,
    joinedAt: new Date(row.created_at),
    lastActiveAt: row.last_active_at ? new Date(row.last_active_at) : null,
    activeKeys: Number(row.active_keys),
  }));
}

/** Adds a member, or changes the role of one who is already there (an invite for a stronger role). Returns the role now held. */
export async function addTeamMember(em: EntityManager, teamId: string, userId: string, role: StoredRole): Promise<StoredRole> {
  const rows = await em
    .getConnection()
    .execute<Array<{ role: StoredRole }>>(
      `insert into team_members (team_id, user_id, role) values (?, ?, ?)
       on conflict (team_id, user_id) do update set role = case
         when ${rankOf("excluded.role")} > ${rankOf("team_members.role")}
         then excluded.role else team_members.role end
       returning role`,
      [teamId, userId, role],
      "all",
      em.getTransactionContext(),
    );
  return rows[0]!.role;
}

/** What a change to the members came to. */
export type MemberChange = { outcome: "done"; revokedKeys: number } | { outcome: "not_member" } | { outcome: "last_owner" };

/**
 * Runs a change that may take an owner away, with the team's row locked, so two changes at
 * once cannot both leave it without an owner.
 */
async function withOwnerGuard(
  em: EntityManager,
  teamId: string,
  userId: string,
  change: (tx: EntityManager, current: StoredRole) => Promise<MemberChange>,
  losesOwnership: (current: StoredRole) => boolean,
): Promise<MemberChange> {
  return em.transactional(async (tx) => {
    await tx.execute("select 1 from teams where id = ? for update", [teamId]);
    const rows = await tx.execute<Array<{ role: StoredRole }>>("select role from team_members where team_id = ? and user_id = ?", [teamId, userId]);
    const current = rows[0]?.role;
    if (!current) return { outcome: "not_member" };
    if (current === "owner" && losesOwnership(current)) {
      const owners = await tx.execute<Array<{ n: string }>>("select count(*) as n from team_members where team_id = ? and role = 'owner'", [teamId]);
      if (Number(owners[0]!.n) <= 1) return { outcome: "last_owner" };
    }
    return change(tx, current);
  });
}

/** Changes a member's role; the last owner cannot stop being one. */
export async function setTeamMemberRole(em: EntityManager, teamId: string, userId: string, role: StoredRole): Promise<MemberChange> {
  return withOwnerGuard(
    em,
    teamId,
    userId,
    async (tx) => {
      await tx.execute("update team_members set role = ? where team_id = ? and user_id = ?", [role, teamId, userId]);
      // A key never holds more than its creator: stronger keys come down with them.
      await tx.execute(
        `update api_keys set role = ? where team_id = ? and user_id = ? and revoked_at is null
           and ${rankOf("role")} > ${rankOf("?::text")}`,
        [role, teamId, userId, role],
      );
      // Nor does an open invite of theirs: links for a role they no longer hold are withdrawn.
      await tx.execute(
        `update invites set revoked_at = now() where team_id = ? and created_by_id = ? and used_at is null and revoked_at is null
           and ${rankOf("role")} > ${rankOf("?::text")}`,
        [teamId, userId, role],
      );
      return { outcome: "done", revokedKeys: 0 };
    },
    () => role !== "owner",
  );
}

/** Removes a member and revokes the API keys they made for the team; the last owner cannot leave. */
export async function removeTeamMember(em: EntityManager, teamId: string, userId: string): Promise<MemberChange> {
  return withOwnerGuard(
    em,
    teamId,
    userId,
    async (tx) => {
      await tx.execute("delete from team_members where team_id = ? and user_id = ?", [teamId, userId]);
      await announceAccessChange(tx, { teamId, userId });
      const revoked = await tx.execute<Array<{ id: string }>>(
        "update api_keys set revoked_at = now() where team_id = ? and user_id = ? and revoked_at is null returning id",
        [teamId, userId],
      );
      // Their open invite links go too: one sent to themselves would let them back in.
      await tx.execute("update invites set revoked_at = now() where team_id = ? and created_by_id = ? and used_at is null and revoked_at is null", [teamId, userId]);
      return { outcome: "done", revokedKeys: revoked.length };
    },
    () => true,
  );
}

export async function renameTeam(em: EntityManager, teamId: string, name: string): Promise<void> {
  await em.nativeUpdate(TeamEntity, { id: teamId }, { name });
}

/**
 * Deletes a team with everything it owns. Its endpoints go first, each with a purge job for
 * its events (as deleting one endpoint does); keys, invites, members and settings go with
 * the team through their foreign keys.
 */
export async function deleteTeam(em: EntityManager, teamId: string): Promise<boolean> {
  return em.transactional(async (tx) => {
    const endpoints = await tx.execute<Array<{ id: string }>>("delete from endpoints where team_id = ? returning id", [teamId]);
    for (const endpoint of endpoints) await enqueueJobWith(tx, { kind: ENDPOINT_PURGE_JOB, key: endpoint.id });
    const deleted = await tx.execute<Array<{ id: string }>>("delete from teams where id = ? returning id", [teamId]);
    return deleted.length > 0;
  });
}


/**
 * Tells every instance that a member's (or a key's) access to a team changed, so their open
 * streams check it again. Inside a transaction, the message is delivered when it commits.
 */
export async function announceAccessChange(em: EntityManager, change: { teamId: string; userId?: string; keyId?: string }): Promise<void> {
  await em
    .getConnection()
    .execute("select pg_notify(?, ?)", [BUS_CHANNEL, JSON.stringify([{ type: "access.changed", ...change }])], "all", em.getTransactionContext());
}

/** Whether the user is still a member of the team and, for a key, the key is still active. */
export async function stillHasAccess(em: EntityManager, access: { teamId: string; userId: string; keyId?: string }): Promise<boolean> {
  const rows = await em.execute<Array<{ ok: boolean }>>(
    `select exists (select 1 from team_members where team_id = ? and user_id = ?)
        and (?::uuid is null or exists (select 1 from api_keys where id = ?::uuid and team_id = ? and revoked_at is null)) as ok`,
    [access.teamId, access.userId, access.keyId ?? null, access.keyId ?? null, access.teamId],
  );
  return rows[0]?.ok ?? false;
}
