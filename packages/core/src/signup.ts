import { roleAllows, type Role } from "./roles.js";

/** Who may create an account on the dashboard (SIGNUP). The CLI's `rehook user create` always may. */
export const SIGNUP_MODES = ["open", "closed", "invite"] as const;
export type SignupMode = (typeof SIGNUP_MODES)[number];

/** How long an invite link works after it is made. */
export const INVITE_TTL_MS = 7 * 86_400_000;
/** Invites one admin may have open at once: the list stays short and a leaked session cannot mint thousands. */
export const MAX_OPEN_INVITES = 50;

export type InviteState = "open" | "used" | "expired" | "revoked";

/** Where an invite stands at `now` (used and revoked win over expired: they say more). */
export function inviteState(invite: { usedAt: Date | null; revokedAt: Date | null; expiresAt: Date }, now: number): InviteState {
  if (invite.usedAt) return "used";
  if (invite.revokedAt) return "revoked";
  return invite.expiresAt.getTime() <= now ? "expired" : "open";
}

/**
 * Who made an invite, as things stand now (it is judged when it is made and again when it is
 * used: a link made before a change, or by an admin who has since lost the role, is held to
 * today's rule).
 */
export interface Inviter {
  /** A server admin (users.is_admin: `rehook user create --admin`). */
  serverAdmin: boolean;
  /** The inviter's role in the invite's team now (null: no longer a member, or a link made before teams). */
  role: Role | null;
  /**
   * The invite's team is an operator's (teams.made_by_operator: made by `rehook team create`
   * or a server admin, or marked by `rehook team adopt`); false for a personal team and for a
   * link made before teams. Any user may create a team and own it, so "not personal" alone
   * would let anyone mint account-creating links.
   */
  operatorTeam: boolean;
}

/**
 * Whether an invite may create an account for someone who has none, under SIGNUP. Every user
 * owns a personal team and so may make links; the operator's choice must still hold:
 * - open: anyone may sign up anyway;
 * - invite: a server admin's link, or one from an admin (or owner) of an operator's team;
 * - closed: a server admin's link only.
 * Any link still adds someone who already has an account to its team (its admins choose who joins).
 */
export function inviteCreatesAccounts(mode: SignupMode, inviter: Inviter): boolean {
  if (mode === "open" || inviter.serverAdmin) return true;
  if (mode === "closed") return false;
  return inviter.operatorTeam && inviter.role !== null && roleAllows(inviter.role, "admin");
}

/** Why a link cannot create an account here (said at sign-up, and where the link is made). */
export function inviteAccountsRefusal(mode: Exclude<SignupMode, "open">): string {
  const who = mode === "closed" ? "Sign-up on this server is closed: only an invite from a server admin creates an account" : "Sign-up on this server is by invitation from a server admin or an admin of a team the server's operator made";
  return `This invite link only adds people who already have a Rehook account to its team. ${who}. If you have an account, log in, then open the link again.`;
}

/** Said to whoever makes a link that cannot create accounts (the dashboard and `rehook invite create`). */
export function inviteAccountsOnlyNote(mode: Exclude<SignupMode, "open">): string {
  const who = mode === "closed" ? "SIGNUP is closed: only a server admin's invite creates an account" : "SIGNUP is invite: only an invite from a server admin or from an admin of a team the server's operator made creates an account";
  return `This link adds someone who already has a Rehook account to the team; it cannot create an account (${who}).`;
}

/** What the sign-up page and the sign-up use case tell someone an invite cannot be used for. */
export function inviteRefusal(state: Exclude<InviteState, "open"> | "unknown"): string {
  switch (state) {
    case "used":
      return "This invite link has already been used. Ask an admin of this Rehook server for a new one.";
    case "expired":
      return "This invite link has expired. Ask an admin of this Rehook server for a new one.";
    case "revoked":
      return "This invite link was withdrawn. Ask an admin of this Rehook server for a new one.";
    case "unknown":
      return "This invite link is not valid. Check that you copied all of it, or ask an admin of this Rehook server for a new one.";
  }
}

export const SIGNUP_CLOSED_MESSAGE =
  "Sign-up is closed on this server. Ask its administrator to create an account for you (rehook user create).";
export const INVITE_REQUIRED_MESSAGE = "Sign-up on this server is by invitation. Ask an admin of this Rehook server for an invite link.";

/**
 * What the start line adds after "Rehook listening on …": where to go next. Before the first
 * user, that is the sign-up page when anyone may sign up, else `rehook user create` (closed
 * and invite-only servers have nobody to invite yet).
 */
export function startHint(dashboardUrl: string, state: { signup: SignupMode; usersExist: boolean }): string {
  if (state.usersExist) return `open ${dashboardUrl}`;
  if (state.signup === "open") return `open ${dashboardUrl}/signup to create the first user`;
  return `create the first user with rehook user create --email <email> --password <password>, then open ${dashboardUrl}`;
}
