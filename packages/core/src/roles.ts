/**
 * Team roles, weakest first. Each holds every right of the ones before it:
 * a viewer reads; a developer also changes endpoints, replays and reveals secrets;
 * an admin also manages members, invites, every API key and chat notifications, and deletes
 * endpoints; an owner also renames or deletes the team and makes owners.
 */
export const ROLES = ["viewer", "developer", "admin", "owner"] as const;
export type Role = (typeof ROLES)[number];

export function isRole(value: unknown): value is Role {
  return typeof value === "string" && (ROLES as readonly string[]).includes(value);
}

export function roleRank(role: Role): number {
  return ROLES.indexOf(role);
}

/** Whether `held` includes every right of `needed`. */
export function roleAllows(held: Role, needed: Role): boolean {
  return roleRank(held) >= roleRank(needed);
}

/** The weaker of two roles (an API key acts with at most its creator's role). */
export function weakerRole(a: Role, b: Role): Role {
  return roleRank(a) <= roleRank(b) ? a : b;
}

/** The roles a member holding `held` may hand out (to an API key or an invite): theirs and the weaker ones. */
export function rolesUpTo(held: Role): Role[] {
  return ROLES.filter((role) => roleAllows(held, role));
}

/** "a viewer", "an admin". */
export function withArticle(role: Role): string {
  return `${role === "admin" || role === "owner" ? "an" : "a"} ${role}`;
}

/** The sentence a refusal carries: the role the operation needs and the role held. */
export function forbiddenMessage(needed: Role, held: Role, what = "This"): string {
  return `${what} needs the ${needed} role in this team; you are ${withArticle(held)}.`;
}
