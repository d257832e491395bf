import type { RouterOutputs } from "@rehook/api";
import { Form, useSubmit } from "@remix-run/react";
import { useEffect, useState } from "react";
import { Badge } from "../../components/badges";
import { ConfirmDialog } from "../../components/confirm-dialog";
import { DataTable } from "../../components/data-table";
import { RelativeTime } from "../../components/relative-time";
import { RoleNote } from "../../components/role-gate";
import { FormError, FormSuccess } from "../../components/ui";
import { plural } from "../../lib/format";
import { can, roleLabel, rolesUpTo, whyNot, type Role } from "../../lib/roles";
import type { ActionReply } from "./action-reply";
import { Section, usePendingIntent } from "./section";

/** A member as `members.list` answers it. */
export type MemberRow = RouterOutputs["members"]["list"][number];

/** What the viewer may do to one member: change their role, remove them; or why not. */
function rightsOver(viewer: Role, member: MemberRow, self: boolean): { change: boolean; remove: boolean; why: string | undefined } {
  const admin = whyNot(viewer, "admin");
  if (admin) return { change: false, remove: false, why: admin };
  // Owners are made, unmade and removed by owners only (the server says the same).
  if (member.role === "owner" && !can(viewer, "owner")) return { change: false, remove: false, why: "Only an owner can change or remove an owner." };
  return { change: true, remove: !self, why: self ? "To leave the team, use Leave team above." : undefined };
}

/** The team's members: role, when they joined and were last active; admins change roles and remove members. */
export function MembersSection({ members, viewerId, viewerRole, result }: { members: MemberRow[]; viewerId: string; viewerRole: Role; result: ActionReply | undefined }) {
  const pending = usePendingIntent();
  const [removing, setRemoving] = useState<MemberRow | null>(null);
  const roleResult = result?.intent === "setRole" ? result : null;
  const removeResult = result?.intent === "removeMember" ? result : null;
  useEffect(() => {
    if (removeResult) setRemoving(null);
  }, [removeResult]);
  const notAdmin = whyNot(viewerRole, "admin");

  return (
    <Section id="members" icon="users" title="Members" description="Everyone in this team, with their role and when they were last active.">
      {notAdmin ? <RoleNote>{whyNot(viewerRole, "admin", "Changing roles and removing members")}</RoleNote> : null}
      <FormSuccess message={roleResult?.ok ? roleResult.message : removeResult?.ok ? removeResult.message : null} />
      <FormError message={roleResult && !roleResult.ok ? `Could not change the role: ${roleResult.error}` : removeResult && !removeResult.ok ? `Could not remove the member: ${removeResult.error}` : null} />
      <div className="table-wrap">
        <DataTable
          className="keys-table members-table stacks-on-phone"
          caption={`Members (${members.length})`}
          columns={["Member", "Role", "Joined", "Last active", { label: <span className="sr-only">Actions</span> }]}
        >
          {members.map((member) => {
            const self = member.userId === viewerId;
            const rights = rightsOver(viewerRole, member, self);
            return (
              <tr key={member.userId} data-testid="member-row" data-role={member.role}>
                <td data-label="Member" className="cell-strong">
                  <span className="member-email">{member.email}</span>
                  {self ? (
                    <Badge tone="neutral" dot={false}>
                      you
                    </Badge>
                  ) : null}
                </td>
                <td data-label="Role">
                  {rights.change ? (
                    <RoleSelect
                      member={member}
                      choices={rolesUpTo(viewerRole)}
                      busy={pending.intent === "setRole" && pending.id === member.userId}
                      result={roleResult}
                    />
                  ) : (
                    <span className="member-role" title={notAdmin ? undefined : rights.why} data-testid="member-role">
                      {roleLabel(member.role)}
                    </span>
                  )}
                </td>
                <td data-label="Joined">
                  <RelativeTime value={member.joinedAt} />
                </td>
                <td data-label="Last active" data-testid="member-last-active">
                  {member.lastActiveAt ? <RelativeTime value={member.lastActiveAt} /> : <span className="muted">never</span>}
                </td>
                <td className="cell-actions">
                  {notAdmin || self ? null : (
                    <button
                      type="button"
                      className="button danger-outline small"
                      onClick={() => setRemoving(member)}
                      disabled={!rights.remove}
                      title={rights.remove ? `Remove ${member.email} from the team` : rights.why}
                    >
                      Remove
                    </button>
                  )}
                </td>
              </tr>
            );
          })}
        </DataTable>
      </div>
      <ConfirmDialog
        open={removing !== null}
        onClose={() => setRemoving(null)}
        title={`Remove ${removing?.email ?? "this member"} from the team?`}
        description={
          <p data-testid="remove-member-text">
            They lose access to this team's endpoints, events and replays at once, including open live streams.{" "}
            {removing && removing.activeKeys > 0
              ? `The ${plural(removing.activeKeys, "API key")} they made for this team will be revoked.`
              : "They made no API keys for this team."}
          </p>
        }
      >
        {removing ? (
          <Form method="post" preventScrollReset>
            <input type="hidden" name="intent" value="removeMember" />
            <input type="hidden" name="id" value={removing.userId} />
            <input type="hidden" name="email" value={removing.email} />
            <button type="submit" className="button danger" disabled={pending.intent === "removeMember"}>
              {pending.intent === "removeMember" ? "Removing…" : "Remove member"}
            </button>
          </Form>
        ) : null}
      </ConfirmDialog>
    </Section>
  );
}

/** A member's role as a list that saves when a new role is chosen (only the roles the viewer may give). */
function RoleSelect({ member, choices, busy, result }: { member: MemberRow; choices: Role[]; busy: boolean; result: ActionReply | null }) {
  const submit = useSubmit();
  // Back to the stored role after each answer: a refused change (the last owner) does not stay shown.
  const [value, setValue] = useState<Role>(member.role);
  useEffect(() => setValue(member.role), [member.role, result]);
  // An owner's row seen by an owner lists every role; the member's current role is always listed.
  const options = choices.includes(member.role) ? choices : [...choices, member.role];
  return (
    <Form method="post" preventScrollReset className="member-role-form">
      <input type="hidden" name="intent" value="setRole" />
      <input type="hidden" name="id" value={member.userId} />
      <input type="hidden" name="email" value={member.email} />
      <select
        name="role"
        value={value}
        onChange={(event) => {
          const form = event.currentTarget.form;
          setValue(event.currentTarget.value as Role);
          if (form) submit(form, { preventScrollReset: true });
        }}
        aria-label={`Role of ${member.email}`}
        disabled={busy}
        data-testid="member-role-select"
      >
        {options.map((role) => (
          <option key={role} value={role}>
            {roleLabel(role)}
          </option>
        ))}
      </select>
      <noscript>
        <button type="submit" className="button secondary small">
          Save
        </button>
      </noscript>
    </Form>
  );
}
