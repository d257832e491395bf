import { forbiddenMessage, INVITE_TTL_MS, inviteAccountsOnlyNote, inviteAccountsRefusal, inviteCreatesAccounts, inviteRefusal, inviteState, MAX_OPEN_INVITES, ROLES, roleAllows, UserError, uuidv7, type AuditOrigin, type InviteState, type Role, withArticle } from "@rehook/core";
import { z } from "zod";
import { inviteTokenDigest, isWellFormedInviteToken, issueInviteToken } from "@rehook/auth";
import {
  addTeamMember,
  claimInvite,
  countOpenInvitesOf,
  findInviteByTokenHash,
  findTeamById,
  insertInvite,
  inviterOf,
  listInvitesOf,
  recordInviteUser,
  revokeInviteOf,
  type EntityManager,
  type Invite,
} from "@rehook/db";
import type { Actor } from "./contracts/contract.js";
import type { ServiceContext } from "./context.js";
import { parseInput } from "./validation.js";
import { recordAudit, type AuditedBy } from "./audit.js";
import { signupMode } from "./signup-mode.js";

/** Invites the Settings page lists (the most recent). */
const LISTED_INVITES = 50;

export interface InviteView {
  id: string;
  createdAt: Date;
  expiresAt: Date;
  state: InviteState;
  /** The role the link gives (null: a sign-up-only link from before teams). */
  role: Role | null;
  /** The email of the admin who made it. */
  createdBy: string;
  /** The email of the user who used it. */
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
    role: invite.role,
    createdBy: invite.createdBy.email,
    usedBy: invite.usedBy?.email ?? null,
  };
}

const inviteRoleSchema = z.enum(ROLES, { message: `the role must be one of ${ROLES.join(", ")}` });

/** Whether the invite, as things stand now, may create an account under SIGNUP (inviteCreatesAccounts in @rehook/core). */
async function createsAccounts(em: EntityManager, ctx: Pick<ServiceContext, "signup">, inviteId: string): Promise<boolean> {
  const mode = signupMode(ctx);
  if (mode === "open") return true;
  const inviter = await inviterOf(em, inviteId);
  return inviter !== null && inviteCreatesAccounts(mode, inviter);
}

/**
 * Makes a one-time link (valid INVITE_TTL_MS) that adds its user to the actor's team with
 * `role` (default developer; at most the inviter's own). Signed out, it signs up first where
 * SIGNUP lets this inviter's links create accounts (`createsAccounts` in the answer; with
 * SIGNUP=closed only a server admin's do, with invite also those of an admin of a team an
 * operator made); any link adds someone who already has an account. The link is in this
 * answer only (only a hash of its token is stored).
 */
export async function createInvite(
  ctx: Clocked & Pick<ServiceContext, "baseUrl" | "signup">,
  actor: Actor,
  input: { role?: Role },
): Promise<{ url: string; invite: InviteView; createsAccounts: boolean; note: string | null }> {
  const role = parseInput(inviteRoleSchema, input.role ?? "developer");
  if (!roleAllows(actor.role, role)) throw new UserError("forbidden", forbiddenMessage(role, actor.role, `Inviting someone as ${withArticle(role)}`));
  const now = clock(ctx);
  return ctx.orm.em.fork().transactional(async (em) => {
    if ((await countOpenInvitesOf(em, actor.teamId, new Date(now))) >= MAX_OPEN_INVITES) {
      throw new UserError("conflict", `This team has ${MAX_OPEN_INVITES} open invites, the most there can be. Revoke some you no longer need, then try again.`);
    }
    const issued = issueInviteToken();
    const invite = await insertInvite(em, {
      id: uuidv7(),
      createdById: actor.userId,
      teamId: actor.teamId,
      role,
      tokenHash: issued.digest,
      createdAt: new Date(now),
      expiresAt: new Date(now + INVITE_TTL_MS),
    });
    await em.populate(invite, ["createdBy"]);
    // The link's token is a credential: never in the entry.
    await recordAudit(em, actor, { action: "invite.create", target: { type: "invite", id: invite.id, name: null }, changes: { role, expires_at: invite.expiresAt.toISOString() } });
    const creates = await createsAccounts(em, ctx, invite.id);
    const mode = signupMode(ctx);
    return { url: `${ctx.baseUrl}/signup?invite=${issued.token}`, invite: inviteView(invite, now), createsAccounts: creates, note: creates || mode === "open" ? null : inviteAccountsOnlyNote(mode) };
  });
}

export async function listInvites(ctx: Clocked, input: { teamId: string }): Promise<InviteView[]> {
  const now = clock(ctx);
  return (await listInvitesOf(ctx.orm.em.fork(), input.teamId, LISTED_INVITES)).map((invite) => inviteView(invite, now));
}

/** Withdraws an unused invite of the team: its link stops working at once. */
export async function revokeInvite(ctx: Clocked, input: { teamId: string; by?: AuditedBy; inviteId: string }): Promise<void> {
  await ctx.orm.em.fork().transactional(async (em) => {
    if (!(await revokeInviteOf(em, input.teamId, input.inviteId, new Date(clock(ctx))))) {
      throw new UserError("not_found", "That invite no longer exists or has been used already. Reload the page to see the team's invites.");
    }
    await recordAudit(em, input.by, { teamId: input.teamId, action: "invite.revoke", target: { type: "invite", id: input.inviteId, name: null } });
  });
}

/**
 * Where an invite link stands, for the sign-up page: open, or why it cannot be used
 * (`accounts_only`: it is open, but SIGNUP does not let it create an account; it still adds
 * someone who has one).
 */
export async function checkInvite(ctx: Clocked & Pick<ServiceContext, "signup">, token: string): Promise<InviteState | "unknown" | "accounts_only"> {
  if (!isWellFormedInviteToken(token)) return "unknown";
  const em = ctx.orm.em.fork();
  const invite = await findInviteByTokenHash(em, inviteTokenDigest(token));
  if (!invite) return "unknown";
  const state = inviteState(invite, clock(ctx));
  return state === "open" && !(await createsAccounts(em, ctx, invite.id)) ? "accounts_only" : state;
}

/**
 * Claims the invite in `em`'s transaction (or refuses with why it cannot be used); the
 * function it answers adds the user to the invite's team and records who used it.
 */
async function claim(
  em: EntityManager,
  ctx: Clocked & Pick<ServiceContext, "signup">,
  token: string,
  origin: AuditOrigin | undefined,
  use: "new_account" | "existing_account",
): Promise<(userId: string) => Promise<{ teamId: string | null }>> {
  const digest = isWellFormedInviteToken(token) ? inviteTokenDigest(token) : null;
  const now = clock(ctx);
  const claimed = digest ? await claimInvite(em, digest, new Date(now)) : null;
  if (!claimed) {
    const invite = digest ? await findInviteByTokenHash(em, digest) : null;
    const state = invite ? inviteState(invite, now) : "unknown";
    throw new UserError("forbidden", inviteRefusal(state === "open" ? "used" : state));
  }
  // Judged now, not when it was made: a link from before this rule, or from an admin who has
  // since lost the role, creates no account SIGNUP does not allow (the claim rolls back with the refusal).
  const mode = signupMode(ctx);
  if (use === "new_account" && mode !== "open" && !(await createsAccounts(em, ctx, claimed.id))) throw new UserError("forbidden", inviteAccountsRefusal(mode));
  return async (userId) => {
    if (claimed.teamId) await addTeamMember(em, claimed.teamId, userId, claimed.role ?? "developer");
    await recordInviteUser(em, claimed.id, userId);
    // Used by the user it adds (signing up or signed in), in the team it adds them to.
    if (claimed.teamId) {
      await recordAudit(em, { userId, teamId: claimed.teamId, ...(origin ? { origin } : {}) }, { action: "invite.use", target: { type: "invite", id: claimed.id, name: null }, changes: { role: claimed.role ?? "developer" } });
    }
    return { teamId: claimed.teamId };
  };
}

/**
 * For createUser's transaction: claims the invite, and once the user exists adds them to its
 * team, told to `joined` (null for a sign-up-only link made before teams).
 */
export function inviteClaim(
  ctx: Clocked & Pick<ServiceContext, "signup">,
  token: string,
  joined: (teamId: string | null) => void = () => undefined,
  origin?: AuditOrigin,
): (em: EntityManager) => Promise<(userId: string) => Promise<void>> {
  return async (em) => {
    const join = await claim(em, ctx, token, origin, "new_account");
    return async (userId) => {
      joined((await join(userId)).teamId);
    };
  };
}

/** A signed-in user opens an invite link: they join its team (the link is used up). Answers the team joined. */
export async function acceptInvite(ctx: Clocked, input: { userId: string; token: string; origin?: AuditOrigin }): Promise<{ teamId: string; name: string; slug: string }> {
  return ctx.orm.em.fork().transactional(async (em) => {
    const join = await claim(em, ctx, input.token, input.origin, "existing_account");
    const { teamId } = await join(input.userId);
    const team = teamId ? await findTeamById(em, teamId) : null;
    if (!team) throw new UserError("not_found", "This invite link was made before teams and only signs up new users. Ask for a new link.");
    return { teamId: team.id, name: team.name, slug: team.slug };
  });
}
