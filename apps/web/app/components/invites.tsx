import { Form, useNavigation } from "@remix-run/react";
import { roleLabel, type Role } from "../lib/roles";
import { Badge } from "./badges";
import { DataTable } from "./data-table";
import { IntentButton, SubmitButton } from "./form-fields";
import { RelativeTime } from "./relative-time";
import { CopyField, FormError } from "./ui";
import "./invites.css";

type InviteRow = {
  id: string;
  createdAt: Date;
  expiresAt: Date;
  state: "open" | "used" | "expired" | "revoked";
  /** The role the link gives (null: a sign-up-only link made before teams). */
  role: Role | null;
  createdBy: string;
  usedBy: string | null;
};
/** The Settings action's answer, as far as invites read it (the new link travels in `key`). */
type InviteReply = { intent: string; ok: boolean; id: string | null; key: string | null; note: string | null; error: string | null } | undefined;

const STATE_LABEL = { open: "Open", used: "Used", expired: "Expired", revoked: "Revoked" } as const;
const STATE_TONE = { open: "delivered", used: "neutral", expired: "neutral", revoked: "revoked" } as const;

/** An admin's invite links: make one with a role (shown once), see each one's role, maker, expiry or use, revoke an open one. */
export function Invites({ invites, roles, result }: { invites: InviteRow[]; /** The roles the admin may give (at most their own). */ roles: Role[]; result: InviteReply }) {
  const navigation = useNavigation();
  const pendingIntent = navigation.state === "submitting" ? String(navigation.formData?.get("intent") ?? "") : null;
  const pendingId = navigation.state === "submitting" ? String(navigation.formData?.get("id") ?? "") : null;
  const created = result?.intent === "createInvite" && result.ok ? result.key : null;
  const failed = (result?.intent === "createInvite" || result?.intent === "revokeInvite") && !result.ok ? result.error : null;
  return (
    <div className="invites">
      <Form method="post" className="inline-form invite-form" preventScrollReset>
        <input type="hidden" name="intent" value="createInvite" />
        <div className="field invite-role">
          <label htmlFor="invite-role">Role</label>
          <select id="invite-role" name="role" defaultValue={roles.includes("developer") ? "developer" : roles[0]}>
            {roles.map((role) => (
              <option key={role} value={role}>
                {roleLabel(role)}
              </option>
            ))}
          </select>
        </div>
        <SubmitButton busy={pendingIntent === "createInvite"} busyLabel="Creating…">
          Create invite link
        </SubmitButton>
      </Form>
      <FormError message={failed} />
      {created ? (
        <div className="new-secret" aria-labelledby="new-invite-title">
          <p id="new-invite-title" className="new-secret-title">
            New invite link
          </p>
          <CopyField value={created} testId="new-invite-link" />
          <p className="new-secret-note">
            <strong>Copy it now: it will not be shown again.</strong> Send it to the person you invite; it works once.
          </p>
          {result?.note ? (
            <p className="new-secret-note" data-testid="new-invite-note">
              {result.note}
            </p>
          ) : null}
        </div>
      ) : null}
      {invites.length === 0 ? (
        <p className="muted empty-inline">No invites yet.</p>
      ) : (
        <div className="table-wrap">
          <DataTable className="invites-table" caption="Invites" columns={["Role", "Created by", "Created", "Expires", "State", { label: <span className="sr-only">Actions</span> }]}>
            {invites.map((invite) => (
              <tr key={invite.id} data-testid="invite-row">
                <td data-label="Role" data-testid="invite-role">
                  {invite.role ? roleLabel(invite.role) : <span className="muted" title="Made before teams: it signs up a new user without adding them to a team">Sign-up only</span>}
                </td>
                <td data-label="Created by" className="invite-creator">
                  {invite.createdBy}
                </td>
                <td data-label="Created">
                  <RelativeTime value={invite.createdAt} />
                </td>
                <td data-label="Expires">{invite.state === "open" ? <RelativeTime value={invite.expiresAt} /> : <span className="muted">—</span>}</td>
                <td data-label="State">
                  <Badge tone={STATE_TONE[invite.state]} dot={false}>
                    {STATE_LABEL[invite.state]}
                  </Badge>
                  {invite.usedBy ? <span className="muted small invite-used-by"> by {invite.usedBy}</span> : null}
                </td>
                <td className="cell-actions">
                  {invite.state === "open" ? (
                    <IntentButton
                      intent="revokeInvite"
                      id={invite.id}
                      className="button danger-outline small"
                      busy={pendingIntent === "revokeInvite" && pendingId === invite.id}
                      busyLabel="Revoking…"
                      preventScrollReset
                    >
                      Revoke
                    </IntentButton>
                  ) : null}
                </td>
              </tr>
            ))}
          </DataTable>
        </div>
      )}
    </div>
  );
}
