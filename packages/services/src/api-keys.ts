import { forbiddenMessage, ROLES, roleAllows, safeText, UserError, uuidv7, rolesUpTo, weakerRole, withArticle, type Role } from "@rehook/core";
import { z } from "zod";
import type { Actor } from "./contracts/contract.js";
import { apiKeyDigest, isWellFormedApiKey, issueApiKey } from "@rehook/auth";
import { findActiveApiKey, findTeamApiKey, insertApiKey, listApiKeysOf, revokeOwnedApiKey, type ApiKey } from "@rehook/db";
import type { ServiceContext } from "./context.js";
import { parseInput } from "./validation.js";
import { recordAudit } from "./audit.js";

export interface ApiKeyView {
  id: string;
  name: string;
  prefix: string;
  /** What the key may do in the team (at most its creator's role). */
  role: Role;
  /** The email of the member who made it. */
  createdBy: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

function apiKeyView(key: ApiKey): ApiKeyView {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    role: key.role,
    createdBy: key.user.email,
    createdAt: key.createdAt,
    lastUsedAt: key.lastUsedAt,
    revokedAt: key.revokedAt,
  };
}

const keyNameSchema = safeText("the name").trim().min(1, "give the key a name").max(100, "the name must be at most 100 characters");

/** Roles a key can have: what its creator holds, and no more than developer for a developer (admins make any key). */
function requireKeyRole(actor: Actor, role: Role): void {
  if (!roleAllows(actor.role, role)) throw new UserError("forbidden", `A key can have at most its creator's role: you are ${withArticle(actor.role)}, so choose ${rolesUpTo(actor.role).join(" or ")}.`);
}

const keyRoleSchema = z.enum(ROLES, { message: `the role must be one of ${ROLES.join(", ")}` });

/** Issues a key for the actor's team with a role (default developer, at most the actor's); the whole key is in this answer only. */
export async function createApiKey(ctx: Pick<ServiceContext, "orm">, actor: Actor, input: { name?: string; role?: Role }): Promise<{ key: string; apiKey: ApiKeyView }> {
  const name = parseInput(keyNameSchema, input.name ?? "default");
  const role = parseInput(keyRoleSchema, input.role ?? (roleAllows(actor.role, "developer") ? "developer" : actor.role));
  requireKeyRole(actor, role);
  const issued = issueApiKey();
  return ctx.orm.em.fork().transactional(async (em) => {
    const stored = await insertApiKey(em, { id: uuidv7(), teamId: actor.teamId, userId: actor.userId, role, name, prefix: issued.prefix, keyHash: issued.digest });
    await em.populate(stored, ["user"]);
    // The display prefix names the key; the key itself is in this answer only.
    await recordAudit(em, actor, { action: "api_key.create", target: { type: "api_key", id: stored.id, name: `${name} (${issued.prefix}…)` }, changes: { role, prefix: issued.prefix } });
    return { key: issued.key, apiKey: apiKeyView(stored) };
  });
}

export async function listApiKeys(ctx: Pick<ServiceContext, "orm">, input: { teamId: string }): Promise<ApiKeyView[]> {
  return (await listApiKeysOf(ctx.orm.em.fork(), input.teamId)).map(apiKeyView);
}

/** Revokes one of the team's keys at once: requests with it answer 401 from then on. A developer revokes developer and viewer keys; admins any. */
export async function revokeApiKey(ctx: Pick<ServiceContext, "orm">, actor: Actor, input: { keyId: string }): Promise<void> {
  await ctx.orm.em.fork().transactional(async (em) => {
    const key = await findTeamApiKey(em, actor.teamId, input.keyId);
    if (key && !roleAllows(actor.role, key.role === "owner" || key.role === "admin" ? "admin" : "developer")) {
      throw new UserError("forbidden", forbiddenMessage("admin", actor.role, `Revoking an ${key.role} key`));
    }
    if (!key || !(await revokeOwnedApiKey(em, actor.teamId, input.keyId))) {
      throw new UserError("not_found", `There is no active API key with the id ${input.keyId}. It may have been revoked already.`);
    }
    await recordAudit(em, actor, { action: "api_key.revoke", target: { type: "api_key", id: key.id, name: `${key.name} (${key.prefix}…)` }, changes: { role: key.role } });
  });
}

/**
 * The key in an `Authorization: Bearer <key>` header as an actor (its team, creator and role), or null for a missing,
 * malformed, unknown or revoked key (all the same to the caller). Only a digest is looked up.
 */
export async function authenticateApiKey(
  ctx: Pick<ServiceContext, "orm">,
  authorization: string | undefined,
): Promise<Actor & { keyId: string; prefix: string } | null> {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "");
  const token = match?.[1];
  if (!token || !isWellFormedApiKey(token)) return null;
  const key = await findActiveApiKey(ctx.orm.em.fork(), apiKeyDigest(token));
  // A key acts with its own role, and never more than its creator holds in the team now.
  return key ? { userId: key.userId, teamId: key.teamId, role: weakerRole(key.role, key.creatorRole), keyId: key.keyId, prefix: key.prefix } : null;
}
