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
