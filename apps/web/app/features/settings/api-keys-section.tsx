import { Form } from "@remix-run/react";
import { Badge } from "../../components/badges";
import { DataTable } from "../../components/data-table";
import { IntentButton, SubmitButton, TextField } from "../../components/form-fields";
import { useResetAfterCreate } from "../../components/hooks";
import { RelativeTime } from "../../components/relative-time";
import { RoleNote } from "../../components/role-gate";
import { CopyField, FormError } from "../../components/ui";
import { roleLabel, rolesUpTo, whyNot, withArticle, type Role } from "../../lib/roles";
import type { ActionReply } from "./action-reply";
import { Section, usePendingIntent } from "./section";

type ApiKeyRow = { id: string; name: string; prefix: string; role: Role; createdBy: string; createdAt: Date; lastUsedAt: Date | null; revokedAt: Date | null };

/** Why the viewer may not revoke a key of this role (admin and owner keys need an admin), or undefined. */
function revokeRefusal(viewer: Role, key: Role): string | undefined {
  return key === "admin" || key === "owner" ? whyNot(viewer, "admin", `Revoking ${withArticle(key)} key`) : undefined;
}

const KEYS_DESCRIPTION = (
  <>
    The team's keys, for scripts and CI: send one in the <code className="inline-code">Authorization: Bearer …</code> header to call the Rehook API. A key acts
    with its role, and never more than its creator's.
  </>
);

/** The team's API keys (null: the viewer's role may not see them), or why not. */
export function ApiKeysSection({ apiKeys, role, result }: { apiKeys: ApiKeyRow[] | null; role: Role; result: ActionReply | undefined }) {
  return apiKeys ? (
    <ApiKeys apiKeys={apiKeys} role={role} result={result} />
  ) : (
    <Section id="api-keys" icon="key" title="API keys" description={KEYS_DESCRIPTION}>
      <RoleNote>{whyNot(role, "developer", "Managing API keys")}</RoleNote>
    </Section>
  );
}

/** Generate a key with a role (shown once), see who made each and when it was last used, revoke one. */
function ApiKeys({ apiKeys, role, result }: { apiKeys: ApiKeyRow[]; role: Role; result: ActionReply | undefined }) {
  const pending = usePendingIntent();
  const created = result?.intent === "createKey" && result.ok ? result : null;
  const formRef = useResetAfterCreate(created);
  const createError = result?.intent === "createKey" && !result.ok ? result.error : null;
  const revokeResult = result?.intent === "revokeKey" ? result : null;
  const active = apiKeys.filter((key) => !key.revokedAt).length;

  return (
    <Section id="api-keys" icon="key" title="API keys" description={KEYS_DESCRIPTION}>
      <Form method="post" className="inline-form" ref={formRef} noValidate>
        <input type="hidden" name="intent" value="createKey" />
        <TextField id="key-name" label="Key name" name="name" required maxLength={100} autoComplete="off" placeholder="CI deploys" />
        <div className="field key-role">
          <label htmlFor="key-role">Role</label>
          <select id="key-role" name="role" defaultValue="developer" aria-describedby="key-role-hint">
            {rolesUpTo(role).map((choice) => (
              <option key={choice} value={choice}>
                {roleLabel(choice)}
              </option>
            ))}
          </select>
        </div>
        <SubmitButton busy={pending.intent === "createKey"} busyLabel="Generating…">
          Generate key
        </SubmitButton>
      </Form>
      <small id="key-role-hint" className="hint key-role-hint">
        A viewer key reads; a developer key also changes endpoints and replays. A key can have at most your role.
      </small>
      <FormError message={createError} />

      {created?.key ? (
        <div className="new-secret" aria-labelledby="new-key-title">
          <p id="new-key-title" className="new-secret-title">
            New key “{created.name}”
          </p>
          <CopyField value={created.key} testId="new-api-key" />
          <p className="new-secret-note">
            <strong>Copy it now: it will not be shown again.</strong> Rehook stores only a hash of the key.
          </p>
        </div>
      ) : null}

      {revokeResult && !revokeResult.ok ? <FormError message={`Could not revoke the key: ${revokeResult.error}`} /> : null}

      {apiKeys.length === 0 ? (
        <p className="muted empty-inline">No API keys yet. Generate one above.</p>
      ) : (
        <div className="table-wrap">
          <DataTable
            className="keys-table stacks-on-phone"
            caption={`API keys (${active} active)`}
            columns={["Name", "Key", "Role", "Created by", "Created", "Last used", { label: <span className="sr-only">Actions</span> }]}
          >
            {apiKeys.map((key) => {
              const revoking = pending.intent === "revokeKey" && pending.id === key.id;
              return (
                <tr key={key.id} data-testid="api-key-row" className={key.revokedAt ? "is-revoked" : undefined}>
                  <td data-label="Name" className="cell-strong">
                    {key.name}
                  </td>
                  <td data-label="Key">
                    <code className="inline-code">{key.prefix}…</code>
                  </td>
                  <td data-label="Role" data-testid="key-role">
                    {roleLabel(key.role)}
                  </td>
                  <td data-label="Created by" className="cell-wrap" data-testid="key-creator">
                    {key.createdBy}
                  </td>
                  <td data-label="Created">
                    <RelativeTime value={key.createdAt} />
                  </td>
                  <td data-label="Last used">{key.lastUsedAt ? <RelativeTime value={key.lastUsedAt} /> : <span className="muted">Never</span>}</td>
                  <td className="cell-actions">
                    {key.revokedAt ? (
                      <Badge tone="revoked" dot={false} title={`Revoked ${key.revokedAt.toISOString().slice(0, 10)}`}>
                        Revoked
                      </Badge>
                    ) : (
                      <IntentButton
                        intent="revokeKey"
                        id={key.id}
                        className="button danger-outline small"
                        busy={revoking}
                        busyLabel="Revoking…"
                        locked={revokeRefusal(role, key.role)}
                      >
                        Revoke
                      </IntentButton>
                    )}
                  </td>
                </tr>
              );
            })}
          </DataTable>
        </div>
      )}
    </Section>
  );
}
