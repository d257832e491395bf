import { Form } from "@remix-run/react";
import { useEffect, useState } from "react";
import { Badge } from "../../components/badges";
import { ConfirmDialog } from "../../components/confirm-dialog";
import { IntentButton, SubmitButton, TextField } from "../../components/form-fields";
import { RoleNote } from "../../components/role-gate";
import { useAccess } from "../../components/use-team";
import { Detail, FormError, FormSuccess, Icon } from "../../components/ui";
import { plural } from "../../lib/format";
import { whyNot, withArticle, type Role } from "../../lib/roles";
import type { ActionReply } from "./action-reply";
import { Section, usePendingIntent } from "./section";

interface TeamFacts {
  name: string;
  slug: string;
  role: Role;
  personal: boolean;
}

/** The team itself: its name (owners rename it), leaving it, and (owners) deleting it. */
export function TeamSection({ team, ownKeys, result }: { team: TeamFacts; ownKeys: number; result: ActionReply | undefined }) {
  const owner = useAccess("owner");
  const pending = usePendingIntent();
  const renamed = result?.intent === "renameTeam" ? result : null;
  const [leaving, setLeaving] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const leaveError = result?.intent === "leaveTeam" && !result.ok ? result.error : null;
  const deleteError = result?.intent === "deleteTeam" && !result.ok ? result.error : null;
  // A refusal (the last owner cannot leave) closes the dialog and shows why on the page.
  useEffect(() => {
    if (leaveError) setLeaving(false);
  }, [leaveError, result]);
  useEffect(() => {
    if (deleteError) setDeleting(false);
  }, [deleteError, result]);

  return (
    <Section
      id="team"
      icon="users"
      title="Team"
      description="Endpoints, events, replays, API keys, invites and notifications belong to the team: every member sees them, and their role decides what they may change."
      actions={
        <Badge tone="neutral" dot={false} data-testid="own-role">
          You are {withArticle(team.role)}
        </Badge>
      }
    >
      <dl className="kv details-grid team-facts">
        <Detail term="Name">
          <span data-testid="team-name">{team.name}</span>{" "}
          {team.personal ? (
            <Badge tone="neutral" dot={false} title="Made for you when you signed up (or on upgrade)">
              Personal
            </Badge>
          ) : null}
        </Detail>
        <Detail term="Slug">
          <code className="inline-code">{team.slug}</code> <span className="muted small">(the CLI's --team)</span>
        </Detail>
      </dl>

      {owner.allowed ? (
        <Form method="post" className="inline-form team-rename" key={team.name} noValidate preventScrollReset>
          <input type="hidden" name="intent" value="renameTeam" />
          <TextField id="team-name" label="Team name" name="name" required maxLength={100} autoComplete="off" defaultValue={team.name} />
          <SubmitButton className="button secondary" busy={pending.intent === "renameTeam"} busyLabel="Renaming…">
            Rename
          </SubmitButton>
        </Form>
      ) : (
        <RoleNote>{whyNot(team.role, "owner", "Renaming or deleting the team")}</RoleNote>
      )}
      <FormSuccess message={renamed?.ok ? "Team renamed" : null} />
      <FormError message={renamed && !renamed.ok ? `Could not rename the team: ${renamed.error}` : null} />

      <div className="team-danger">
        <div className="danger-line">
          <div>
            <p className="danger-title">Leave this team</p>
            <p className="muted small">You lose access to its endpoints and events at once. A team keeps at least one owner.</p>
          </div>
          <button type="button" className="button danger-outline" onClick={() => setLeaving(true)}>
            Leave team
          </button>
        </div>
        <FormError message={leaveError ? `Could not leave the team: ${leaveError}` : null} />
        {owner.allowed ? (
          <>
            <div className="danger-line">
              <div>
                <p className="danger-title">Delete this team</p>
                <p className="muted small">Deletes its endpoints with every event, its API keys, invites and notification settings, for every member.</p>
              </div>
              <button type="button" className="button danger-outline" onClick={() => setDeleting(true)}>
                <Icon name="trash" />
                Delete team
              </button>
            </div>
            <FormError message={deleteError ? `Could not delete the team: ${deleteError}` : null} />
          </>
        ) : null}
      </div>

      <ConfirmDialog
        open={leaving}
        onClose={() => setLeaving(false)}
        title={`Leave “${team.name}”?`}
        description={
          <p>
            You lose access to this team's endpoints, events and replays at once; an admin can invite you again.{" "}
            {ownKeys > 0 ? `The ${plural(ownKeys, "API key")} you made for this team will be revoked.` : "You made no API keys for this team."}
          </p>
        }
      >
        <IntentButton intent="leaveTeam" className="button danger" busy={pending.intent === "leaveTeam"} busyLabel="Leaving…">
          Leave team
        </IntentButton>
      </ConfirmDialog>
      {owner.allowed ? <DeleteTeamDialog name={team.name} open={deleting} busy={pending.intent === "deleteTeam"} onClose={() => setDeleting(false)} /> : null}
    </Section>
  );
}

/** Deleting a team asks for its name, typed, before the button works (the server checks it too). */
function DeleteTeamDialog({ name, open, busy, onClose }: { name: string; open: boolean; busy: boolean; onClose: () => void }) {
  const [typed, setTyped] = useState("");
  useEffect(() => {
    if (!open) setTyped("");
  }, [open]);
  return (
    <ConfirmDialog
      open={open}
      onClose={onClose}
      title={`Delete the team “${name}”?`}
      description={
        <>
          <p>
            Every endpoint of this team stops capturing, and its events, replays, API keys, invites and notification settings are deleted for every member. This
            cannot be undone.
          </p>
          <label className="field delete-team-confirm">
            <span>
              Type <strong className="break">{name}</strong> to confirm
            </span>
            <input form="delete-team-form" name="confirm" type="text" autoComplete="off" spellCheck={false} value={typed} onChange={(event) => setTyped(event.target.value)} />
          </label>
        </>
      }
    >
      <Form method="post" id="delete-team-form">
        <input type="hidden" name="intent" value="deleteTeam" />
        <button type="submit" className="button danger" disabled={busy || typed !== name}>
          {busy ? "Deleting…" : "Delete team"}
        </button>
      </Form>
    </ConfirmDialog>
  );
}
