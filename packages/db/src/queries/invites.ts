import type { EntityManager } from "@mikro-orm/postgresql";
import { InviteEntity, TeamEntity, UserEntity, type Invite, type StoredRole } from "../entities/index.js";

export async function insertInvite(
  em: EntityManager,
  input: { id: string; createdById: string; teamId: string; role: StoredRole; tokenHash: Buffer; createdAt: Date; expiresAt: Date },
): Promise<Invite> {
  const invite = em.create(InviteEntity, {
    id: input.id,
    createdBy: em.getReference(UserEntity, input.createdById),
    team: em.getReference(TeamEntity, input.teamId),
    role: input.role,
    tokenHash: input.tokenHash,
    createdAt: input.createdAt,
    expiresAt: input.expiresAt,
    usedAt: null,
    usedBy: null,
    revokedAt: null,
  });
  await em.persistAndFlush(invite);
  return invite;
}

/** The team's most recent invites, newest first (used and revoked ones included: the list says so). */
export async function listInvitesOf(em: EntityManager, teamId: string, limit: number): Promise<Invite[]> {
  return em.find(InviteEntity, { team: teamId }, { orderBy: { createdAt: "desc", id: "desc" }, limit, populate: ["usedBy", "createdBy"] });
}

/** The team's invites that could still be used at `now`. */
export async function countOpenInvitesOf(em: EntityManager, teamId: string, now: Date): Promise<number> {
  return em.count(InviteEntity, { team: teamId, usedAt: null, revokedAt: null, expiresAt: { $gt: now } });
}

/** Withdraws an unused invite of the team; false when there is none such. */
export async function revokeInviteOf(em: EntityManager, teamId: string, inviteId: string, now: Date): Promise<boolean> {
  if (!/^[0-9a-f-]{36}$/i.test(inviteId)) return false;
  return (await em.nativeUpdate(InviteEntity, { id: inviteId, team: teamId, usedAt: null, revokedAt: null }, { revokedAt: now })) > 0;
}

export async function findInviteByTokenHash(em: EntityManager, tokenHash: Buffer): Promise<Invite | null> {
  return em.findOne(InviteEntity, { tokenHash });
}

/**
 * Marks the invite used, if it still can be (one statement: two sign-ups with the same link
 * cannot both claim it). Run it in the transaction that creates the user, so a refused
 * sign-up leaves the invite unused.
 */
export async function claimInvite(em: EntityManager, tokenHash: Buffer, now: Date): Promise<{ id: string; teamId: string | null; role: StoredRole | null } | null> {
  const rows = await em
    .getConnection()
    .execute<Array<{ id: string; team_id: string | null; role: StoredRole | null }>>(
      "update invites set used_at = ? where token_hash = ? and used_at is null and revoked_at is null and expires_at > ? returning id, team_id, role",
      [now, tokenHash, now],
      "all",
      em.getTransactionContext(),
    );
  const row = rows[0];
  return row ? { id: row.id, teamId: row.team_id, role: row.role } : null;
}

export async function recordInviteUser(em: EntityManager, inviteId: string, userId: string): Promise<void> {
  await em.nativeUpdate(InviteEntity, { id: inviteId }, { usedBy: em.getReference(UserEntity, userId) });
}

/**
 * Who made the invite, as things stand now: whether they are a server admin, their role in
 * the invite's team (null: no longer in it, or a link from before teams) and whether that
 * team is an operator's (teams.made_by_operator; never a personal team). Null when the invite
 * does not exist.
 */
export async function inviterOf(em: EntityManager, inviteId: string): Promise<{ serverAdmin: boolean; role: StoredRole | null; operatorTeam: boolean } | null> {
  const rows = await em.getConnection().execute<Array<{ server_admin: boolean; role: StoredRole | null; operator_team: boolean }>>(
    `select u.is_admin as server_admin, m.role, coalesce(t.made_by_operator and t.personal_of_id is null, false) as operator_team
       from invites i
       join users u on u.id = i.created_by_id
       left join teams t on t.id = i.team_id
       left join team_members m on m.team_id = i.team_id and m.user_id = i.created_by_id
      where i.id = ?`,
    [inviteId],
    "all",
    em.getTransactionContext(),
  );
  const row = rows[0];
  return row ? { serverAdmin: row.server_admin, role: row.role, operatorTeam: row.operator_team } : null;
}
