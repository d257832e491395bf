import type { InviteView } from "@rehook/services";

/** An invite in the wire spelling (snake_case, ISO times): what `rehook invite create` prints. */
export function wireInvite(invite: InviteView) {
  return {
    id: invite.id,
    created_at: invite.createdAt.toISOString(),
    expires_at: invite.expiresAt.toISOString(),
    state: invite.state,
    role: invite.role,
    used_by: invite.usedBy,
  };
}
