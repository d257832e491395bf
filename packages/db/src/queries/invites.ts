import type { EntityManager } from "@mikro-orm/postgresql";
import { InviteEntity, UserEntity, type Invite } from "../entities/index.js";

export async function insertInvite(em: EntityManager, input: { id: string; createdById: string; tokenHash: Buffer; createdAt: Date; expiresAt: Date }): Promise<Invite> {
  const invite = em.create(InviteEntity, {
    id: input.id,
    createdBy: em.getReference(UserEntity, input.createdById),
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

/** The admin's most recent invites, newest first (used and revoked ones included: the list says so). */
export async function listInvitesBy(em: EntityManager, createdById: string, limit: number): Promise<Invite[]> {
  return em.find(InviteEntity, { createdBy: createdById }, { orderBy: { createdAt: "desc", id: "desc" }, limit, populate: ["usedBy"] });
}

/** Invites of this admin that could still be used at `now`. */
export async function countOpenInvitesBy(em: EntityManager, createdById: string, now: Date): Promise<number> {
  return em.count(InviteEntity, { createdBy: createdById, usedAt: null, revokedAt: null, expiresAt: { $gt: now } });
}

/** Withdraws an unused invite of this admin; false when there is none such. */
export async function revokeInviteBy(em: EntityManager, createdById: string, inviteId: string, now: Date): Promise<boolean> {
  if (!/^[0-9a-f-]{36}$/i.test(inviteId)) return false;
  return (await em.nativeUpdate(InviteEntity, { id: inviteId, createdBy: createdById, usedAt: null, revokedAt: null }, { revokedAt: now })) > 0;
}

export async function findInviteByTokenHash(em: EntityManager, tokenHash: Buffer): Promise<Invite | null> {
  return em.findOne(InviteEntity, { tokenHash });
}

/**
 * Marks the invite used, if it still can be (one statement: two sign-ups with the same link
 * cannot both claim it). Run it in the transaction that creates the user, so a refused
 * sign-up leaves the invite unused.
 */
export async function claimInvite(em: EntityManager, tokenHash: Buffer, now: Date): Promise<string | null> {
  const rows = await em
    .getConnection()
    .execute<Array<{ id: string }>>(
      "update invites set used_at = ? where token_hash = ? and used_at is null and revoked_at is null and expires_at > ? returning id",
      [now, tokenHash, now],
      "all",
      em.getTransactionContext(),
    );
  return rows[0]?.id ?? null;
}

export async function recordInviteUser(em: EntityManager, inviteId: string, userId: string): Promise<void> {
  await em.nativeUpdate(InviteEntity, { id: inviteId }, { usedBy: em.getReference(UserEntity, userId) });
}
