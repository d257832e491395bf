import type { EntityManager } from "@mikro-orm/postgresql";
import { announceAccessChange } from "./teams.js";
import { ApiKeyEntity, TeamEntity, UserEntity, type ApiKey, type StoredRole } from "../entities/index.js";

export async function insertApiKey(
  em: EntityManager,
  input: { id: string; teamId: string; userId: string; role: StoredRole; name: string; prefix: string; keyHash: Buffer },
): Promise<ApiKey> {
  const key = em.create(ApiKeyEntity, {
    id: input.id,
    team: em.getReference(TeamEntity, input.teamId),
    user: em.getReference(UserEntity, input.userId),
    role: input.role,
    name: input.name,
    prefix: input.prefix,
    keyHash: input.keyHash,
    createdAt: new Date(),
    lastUsedAt: null,
    revokedAt: null,
  });
  await em.persistAndFlush(key);
  return key;
}

/** The team's keys, newest first, revoked ones included (lists show them as revoked), with their creators. */
export async function listApiKeysOf(em: EntityManager, teamId: string): Promise<ApiKey[]> {
  return em.find(ApiKeyEntity, { team: teamId }, { orderBy: { createdAt: "desc", id: "desc" }, populate: ["user"] });
}

/** One of the team's keys, revoked or not. */
export async function findTeamApiKey(em: EntityManager, teamId: string, keyId: string): Promise<ApiKey | null> {
  if (!/^[0-9a-f-]{36}$/i.test(keyId)) return null;
  return em.findOne(ApiKeyEntity, { id: keyId, team: teamId });
}

/** Revokes the team's key; false when it has no such key (or it was already revoked). */
export async function revokeOwnedApiKey(em: EntityManager, teamId: string, keyId: string): Promise<boolean> {
  if (!/^[0-9a-f-]{36}$/i.test(keyId)) return false;
  return em.transactional(async (tx) => {
    const revoked = await tx.nativeUpdate(ApiKeyEntity, { id: keyId, team: teamId, revokedAt: null }, { revokedAt: new Date() });
    if (revoked > 0) await announceAccessChange(tx, { teamId, keyId });
    return revoked > 0;
  });
}

/** What an active key may do: its team, its creator, and the weaker of its own role and its creator's role in the team now. */
export interface ActiveApiKey {
  keyId: string;
  teamId: string;
  userId: string;
  prefix: string;
  role: StoredRole;
  /** The creator's role in the key's team now (the key acts with at most this). */
  creatorRole: StoredRole;
}

/**
 * The active key with this digest, while its creator is still a member of its team; touches
 * last_used_at (and the creator's last activity) at most once a minute, so a busy key does
 * not write on every request.
 */
export async function findActiveApiKey(em: EntityManager, digest: Buffer): Promise<ActiveApiKey | null> {
  const rows = await em.execute<Array<{ id: string; team_id: string; user_id: string; prefix: string; role: StoredRole; creator_role: StoredRole; stale: boolean }>>(
    `select k.id, k.team_id, k.user_id, k.prefix, k.role, m.role as creator_role,
            (k.last_used_at is null or k.last_used_at < now() - interval '1 minute') as stale
       from api_keys k join team_members m on m.team_id = k.team_id and m.user_id = k.user_id
      where k.key_hash = ? and k.revoked_at is null`,
    [digest],
  );
  const key = rows[0];
  if (!key) return null;
  if (key.stale) {
    await em.execute(
        `with used as (update api_keys set last_used_at = now() where id = ? and (last_used_at is null or last_used_at < now() - interval '1 minute') returning team_id, user_id)
         update team_members m set last_active_at = now() from used where m.team_id = used.team_id and m.user_id = used.user_id`,
        [key.id],
      );
  }
  return { keyId: key.id, teamId: key.team_id, userId: key.user_id, prefix: key.prefix, role: key.role, creatorRole: key.creator_role };
}
