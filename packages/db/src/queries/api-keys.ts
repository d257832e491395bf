import type { EntityManager } from "@mikro-orm/postgresql";
import { ApiKeyEntity, UserEntity, type ApiKey } from "../entities/index.js";

export async function insertApiKey(em: EntityManager, input: { id: string; userId: string; name: string; prefix: string; keyHash: Buffer }): Promise<ApiKey> {
  const key = em.create(ApiKeyEntity, {
    id: input.id,
    user: em.getReference(UserEntity, input.userId),
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

/** The user's keys, newest first, revoked ones included (lists show them as revoked). */
export async function listApiKeysOf(em: EntityManager, userId: string): Promise<ApiKey[]> {
  return em.find(ApiKeyEntity, { user: userId }, { orderBy: { createdAt: "desc", id: "desc" } });
}

/** Revokes the user's key; false when it has no such key (or it was already revoked). */
export async function revokeOwnedApiKey(em: EntityManager, userId: string, keyId: string): Promise<boolean> {
  if (!/^[0-9a-f-]{36}$/i.test(keyId)) return false;
  const revoked = await em.nativeUpdate(ApiKeyEntity, { id: keyId, user: userId, revokedAt: null }, { revokedAt: new Date() });
  return revoked > 0;
}

/**
 * The active key with this digest and its owner; touches last_used_at at most once a
 * minute (so a busy key does not write on every request).
 */
export async function findActiveApiKey(em: EntityManager, digest: Buffer): Promise<{ keyId: string; userId: string; prefix: string } | null> {
  const key = await em.findOne(ApiKeyEntity, { keyHash: digest, revokedAt: null });
  if (!key) return null;
  // Most requests of a busy key read a fresh last_used_at and write nothing.
  if (!key.lastUsedAt || Date.now() - key.lastUsedAt.getTime() >= 60_000) {
    await em
      .getConnection()
      .execute("update api_keys set last_used_at = now() where id = ? and (last_used_at is null or last_used_at < now() - interval '1 minute')", [key.id]);
  }
  return { keyId: key.id, userId: key.user.id, prefix: key.prefix };
}
