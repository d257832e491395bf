import { isRole, ROLES, roleAllows, rolesUpTo, withArticle, type Role } from "@rehook/core/browser";

export { isRole, ROLES, rolesUpTo, withArticle, type Role };

/** Whether a member with `role` may do what needs `needed` (the server's own rule, from @rehook/core). */
export function can(role: Role, needed: Role): boolean {
  return roleAllows(role, needed);
}

/**
 * Why `role` may not do what needs `needed`, or undefined when it may: "Needs the developer
 * role; you are a viewer.", or with `what` "Creating endpoints needs the developer role; …".
 */
export function whyNot(role: Role, needed: Role, what?: string): string | undefined {
  if (can(role, needed)) return undefined;
  return `${what ? `${what} needs` : "Needs"} the ${needed} role; you are ${withArticle(role)}.`;
}

/** The role's name with a capital, for lists and badges. */
export function roleLabel(role: Role): string {
  return role.charAt(0).toUpperCase() + role.slice(1);
}
