import { safeText, UserError, uuidv7 } from "@rehook/core";
import { apiKeyDigest, isWellFormedApiKey, issueApiKey } from "@rehook/auth";
import { findActiveApiKey, insertApiKey, listApiKeysOf, revokeOwnedApiKey, type ApiKey } from "@rehook/db";
import type { ServiceContext } from "./context.js";
import { parseInput } from "./validation.js";

export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

function apiKeyView(key: ApiKey): ApiKeyView {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    createdAt: key.createdAt,
    lastUsedAt: key.lastUsedAt,
    revokedAt: key.revokedAt,
  };
}

const keyNameSchema = safeText("the name").trim().min(1, "give the key a name").max(100, "the name must be at most 100 characters");

/** Issues a key; the whole key is in this answer only (only its digest is stored). */
export async function createApiKey(ctx: Pick<ServiceContext, "orm">, input: { userId: string; name?: string }): Promise<{ key: string; apiKey: ApiKeyView }> {
  const name = parseInput(keyNameSchema, input.name ?? "default");
  const issued = issueApiKey();
  const stored = await insertApiKey(ctx.orm.em.fork(), { id: uuidv7(), userId: input.userId, name, prefix: issued.prefix, keyHash: issued.digest });
  return { key: issued.key, apiKey: apiKeyView(stored) };
}

export async function listApiKeys(ctx: Pick<ServiceContext, "orm">, input: { userId: string }): Promise<ApiKeyView[]> {
  return (await listApiKeysOf(ctx.orm.em.fork(), input.userId)).map(apiKeyView);
}

/** Revokes a key at once: requests with it answer 401 from then on. */
export async function revokeApiKey(ctx: Pick<ServiceContext, "orm">, input: { userId: string; keyId: string }): Promise<void> {
  if (!(await revokeOwnedApiKey(ctx.orm.em.fork(), input.userId, input.keyId))) {
    throw new UserError("not_found", `There is no active API key with the id ${input.keyId}. It may have been revoked already.`);
  }
}

/**
 * The key in an `Authorization: Bearer <key>` header and its user, or null for a missing,
 * malformed, unknown or revoked key (all the same to the caller). Only a digest is looked up.
 */
export async function authenticateApiKey(
  ctx: Pick<ServiceContext, "orm">,
  authorization: string | undefined,
): Promise<{ userId: string; keyId: string; prefix: string } | null> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
  const token = match?.[1];
  if (!token || !isWellFormedApiKey(token)) return null;
  return findActiveApiKey(ctx.orm.em.fork(), apiKeyDigest(token));
}
