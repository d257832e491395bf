import { INVITE_TTL_MS, inviteRefusal, inviteState, MAX_OPEN_INVITES, UserError, uuidv7, type InviteState } from "@rehook/core";
import { inviteTokenDigest, isWellFormedInviteToken, issueInviteToken } from "@rehook/auth";
import {
  claimInvite,
  countOpenInvitesBy,
  findInviteByTokenHash,
  findUserById,
  insertInvite,
  listInvitesBy,
  recordInviteUser,
  revokeInviteBy,
  type EntityManager,
  type Invite,
} from "@rehook/db";
import type { ServiceContext } from "./context.js";

/** Invites the Settings page lists (the most recent). */
const LISTED_INVITES = 50;

export interface InviteView {
  id: string;
  createdAt: Date;
  expiresAt: Date;
  state: InviteState;
  /** The email of the user who signed up with it. */
  usedBy: string | null;
}

type Clocked = Pick<ServiceContext, "orm" | "now">;
const clock = (ctx: Clocked) => (ctx.now ?? Date.now)();

function inviteView(invite: Invite, now: number): InviteView {
  return {
    id: invite.id,
    createdAt: invite.createdAt,
    expiresAt: invite.expiresAt,
    state: inviteState(invite, now),
    usedBy: invite.usedBy?.email ?? null,
  };
}

/** Whether the user may make invites; throws forbidden otherwise. */
async function requireAdmin(em: EntityManager, userId: string): Promise<void> {
  const user = await findUserById(em, userId);
  if (!user?.isAdmin) throw new UserError("forbidden", "Only an admin of this Rehook server can manage invites. Ask an admin to invite the person instead.");
}

export async function isAdmin(ctx: Pick<ServiceContext, "orm">, input: { userId: string }): Promise<boolean> {
  return (await findUserById(ctx.orm.em.fork(), input.userId))?.isAdmin ?? false;
}

/** Makes a one-time invite link (valid INVITE_TTL_MS); the link is in this answer only (only a hash of its token is stored). */
export async function createInvite(ctx: Clocked & Pick<ServiceContext, "baseUrl">, input: { userId: string }): Promise<{ url: string; invite: InviteView }> {
  const em = ctx.orm.em.fork();
  await requireAdmin(em, input.userId);
  const now = clock(ctx);
  if ((await countOpenInvitesBy(em, input.userId, new Date(now))) >= MAX_OPEN_INVITES) {
    throw new UserError("conflict", `You have ${MAX_OPEN_INVITES} open invites, the most there can be. Revoke some you no longer need, then try again.`);
  }
  const issued = issueInviteToken();
  const invite = await insertInvite(em, {
    id: uuidv7(),
    createdById: input.userId,
    tokenHash: issued.digest,
    createdAt: new Date(now),
    expiresAt: new Date(now + INVITE_TTL_MS),
  });
  return { url: `${ctx.baseUrl}/signup?invite=${issued.token}`, invite: inviteView(invite, now) };
}

export async function listInvites(ctx: Clocked, input: { userId: string }): Promise<InviteView[]> {
  const em = ctx.orm.em.fork();
  await requireAdmin(em, input.userId);
  const now = clock(ctx);
  return (await listInvitesBy(em, input.userId, LISTED_INVITES)).map((invite) => inviteView(invite, now));
}

/** Withdraws an unused invite: its link stops working at once. */
export async function revokeInvite(ctx: Clocked, input: { userId: string; inviteId: string }): Promise<void> {
  const em = ctx.orm.em.fork();
  await requireAdmin(em, input.userId);
  if (!(await revokeInviteBy(em, input.userId, input.inviteId, new Date(clock(ctx))))) {
    throw new UserError("not_found", "That invite no longer exists or has been used already. Reload the page to see your invites.");
  }
}

/** Where an invite link stands, for the sign-up page: open, or why it cannot be used. */
export async function checkInvite(ctx: Clocked, token: string): Promise<InviteState | "unknown"> {
  if (!isWellFormedInviteToken(token)) return "unknown";
  const invite = await findInviteByTokenHash(ctx.orm.em.fork(), inviteTokenDigest(token));
  return invite ? inviteState(invite, clock(ctx)) : "unknown";
}

/**
 * For createUser's transaction: claims the invite (or refuses with why it cannot be used),
 * and afterwards records who used it.
 */
export function inviteClaim(ctx: Clocked, token: string): (em: EntityManager) => Promise<(userId: string) => Promise<void>> {
  return async (em) => {
    const digest = isWellFormedInviteToken(token) ? inviteTokenDigest(token) : null;
    const now = clock(ctx);
    const inviteId = digest ? await claimInvite(em, digest, new Date(now)) : null;
    if (!inviteId) {
      const invite = digest ? await findInviteByTokenHash(em, digest) : null;
      const state = invite ? inviteState(invite, now) : "unknown";
      throw new UserError("forbidden", inviteRefusal(state === "open" ? "used" : state));
    }
    return (userId) => recordInviteUser(em, inviteId, userId);
  };
}
