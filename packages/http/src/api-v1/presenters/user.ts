import type { UserView } from "@rehook/services";

/** A user in the wire spelling: what `rehook user create` prints. */
export function wireUser(user: UserView) {
  return { id: user.id, email: user.email, is_admin: user.isAdmin };
}
