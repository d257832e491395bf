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
