import { type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useEffect, useRef, useState } from "react";
import { ConfirmDialog } from "../components/confirm-dialog";
import { CopyButton } from "../components/copy-button";
import { RelativeTime } from "../components/relative-time";
import { EmptyState, FormError, FormSuccess, Icon, PageHeader, RouteError } from "../components/ui";
import { errorMessage, hasCode } from "../lib/errors";
import { trpc } from "../lib/trpc.client";

export const meta: MetaFunction = () => [{ title: "Settings · Rehook" }];

const TRIGGERS = [
  { value: "failed", label: "Failed", hint: "Recommended: a delivery your app did not accept." },
  { value: "delivered", label: "Delivered", hint: "Can be noisy at volume." },
  { value: "captured", label: "Captured", hint: "For endpoints without a destination URL." },
] as const;
type Trigger = (typeof TRIGGERS)[number]["value"];
const isTrigger = (value: unknown): value is Trigger => TRIGGERS.some((trigger) => trigger.value === value);

export async function loader({ context }: LoaderFunctionArgs) {
  const [apiKeys, endpoints, notifications] = await Promise.all([
    context.caller.apiKeys.list(),
    context.caller.endpoints.list(),
    context.caller.notifications.get(),
  ]);
  return {
    apiKeys,
    endpoints: endpoints.map((endpoint) => ({ id: endpoint.id, name: endpoint.name, webhook_url: endpoint.webhook_url })),
    notifications,
  };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const id = String(form.get("id") ?? "");
  try {
    switch (intent) {
      case "createKey": {
        const created = await context.caller.apiKeys.create({ name: String(form.get("name") ?? "") });
        return { intent, ok: true as const, id: created.apiKey.id, key: created.key, name: created.apiKey.name, secret: null, error: null };
      }
      case "revokeKey":
        await context.caller.apiKeys.revoke({ id });
        return { intent, ok: true as const, id, key: null, name: null, secret: null, error: null };
      case "rotateSecret": {
        const rotated = await context.caller.endpoints.rotateSecret({ id });
        return { intent, ok: true as const, id, key: null, name: null, secret: rotated.secret, error: null };
      }
      case "saveNotifications": {
        const webhookUrl = String(form.get("webhookUrl") ?? "");
        await context.caller.notifications.save({
          enabled: form.get("enabled") !== null,
          webhookUrl: webhookUrl.trim() === "" ? null : webhookUrl,
          triggers: form.getAll("triggers").filter(isTrigger),
        });
        return { intent, ok: true as const, id: null, key: null, name: null, secret: null, error: null };
      }
      default:
        return { intent, ok: false as const, id: null, key: null, name: null, secret: null, error: "unknown action: reload the page and try again" };
    }
  } catch (error) {
    const message = hasCode(error, "NOT_FOUND") ? "it no longer exists: reload the page" : errorMessage(error);
    return { intent, ok: false as const, id: id || null, key: null, name: null, secret: null, error: message };
  }
}

type ActionResult = ReturnType<typeof useActionData<typeof action>>;

export default function Settings() {
  const { apiKeys, endpoints, notifications } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  return (
    <>
      <PageHeader title="Settings" description="API access, signing secrets and notifications for your account." />
      <nav className="section-nav" aria-label="Settings sections">
        <a href="#api-keys">API keys</a>
        <a href="#security">Security</a>
        <a href="#notifications">Notifications</a>
      </nav>
      <ApiKeys apiKeys={apiKeys} result={result} />
      <Security endpoints={endpoints} result={result} />
      <Notifications settings={notifications} result={result} />
    </>
  );
}

function usePendingIntent(): { intent: string | null; id: string | null } {
  const navigation = useNavigation();
  if (navigation.state !== "submitting" || !navigation.formData) return { intent: null, id: null };
  return { intent: String(navigation.formData.get("intent") ?? ""), id: String(navigation.formData.get("id") ?? "") || null };
}

type ApiKeyRow = { id: string; name: string; prefix: string; created_at: string; last_used_at: string | null; revoked_at: string | null };

function ApiKeys({ apiKeys, result }: { apiKeys: ApiKeyRow[]; result: ActionResult }) {
  const pending = usePendingIntent();
  const formRef = useRef<HTMLFormElement>(null);
  const created = result?.intent === "createKey" && result.ok ? result : null;
  const createError = result?.intent === "createKey" && !result.ok ? result.error : null;
  const revokeResult = result?.intent === "revokeKey" ? result : null;
  const active = apiKeys.filter((key) => !key.revoked_at).length;

  useEffect(() => {
    if (created) formRef.current?.reset();
  }, [created]);

  return (
    <section className="card settings-section" id="api-keys" aria-labelledby="api-keys-title">
      <div className="card-header">
        <div>
          <h2 id="api-keys-title" className="card-title">
            <Icon name="key" /> API keys
          </h2>
          <p className="card-description">
            Use a key in the <code className="inline-code">Authorization: Bearer …</code> header to call the Rehook API from scripts and CI.
          </p>
        </div>
      </div>

      <Form method="post" className="inline-form" ref={formRef} noValidate>
        <input type="hidden" name="intent" value="createKey" />
        <div className="field">
          <label htmlFor="key-name">Key name</label>
          <input id="key-name" name="name" type="text" required maxLength={100} autoComplete="off" placeholder="CI deploys" />
        </div>
        <button type="submit" className="button primary" disabled={pending.intent === "createKey"}>
          {pending.intent === "createKey" ? "Generating…" : "Generate key"}
        </button>
      </Form>
      <FormError message={createError} />

      {created?.key ? (
        <div className="new-secret" aria-labelledby="new-key-title">
          <p id="new-key-title" className="new-secret-title">
            New key “{created.name}”
          </p>
          <div className="copy-field">
            <code className="copy-field-value" data-testid="new-api-key">
              {created.key}
            </code>
            <CopyButton text={created.key} />
          </div>
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
          <table className="table keys-table">
            <caption className="sr-only">API keys ({active} active)</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {apiKeys.map((key) => {
                const revoking = pending.intent === "revokeKey" && pending.id === key.id;
                return (
                  <tr key={key.id} data-testid="api-key-row" className={key.revoked_at ? "is-revoked" : undefined}>
                    <td data-label="Name" className="cell-strong">
                      {key.name}
                    </td>
                    <td data-label="Key">
                      <code className="inline-code">{key.prefix}…</code>
                    </td>
                    <td data-label="Created">
                      <RelativeTime value={key.created_at} />
                    </td>
                    <td data-label="Last used">{key.last_used_at ? <RelativeTime value={key.last_used_at} /> : <span className="muted">Never</span>}</td>
                    <td className="cell-actions">
                      {key.revoked_at ? (
                        <span className="badge badge-revoked" title={`Revoked ${new Date(key.revoked_at).toISOString().slice(0, 10)}`}>
                          Revoked
                        </span>
                      ) : (
                        <Form method="post">
                          <input type="hidden" name="intent" value="revokeKey" />
                          <input type="hidden" name="id" value={key.id} />
                          <button type="submit" className="button danger-outline small" disabled={revoking}>
                            {revoking ? "Revoking…" : "Revoke"}
                          </button>
                        </Form>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function Security({ endpoints, result }: { endpoints: Array<{ id: string; name: string }>; result: ActionResult }) {
  return (
    <section className="card settings-section" id="security" aria-labelledby="security-title">
      <div className="card-header">
        <div>
          <h2 id="security-title" className="card-title">
            <Icon name="shield" /> Security
          </h2>
          <p className="card-description">
            Each endpoint has a signing secret. When “Sign forwarded requests” is on, Rehook signs what it forwards with it (Standard Webhooks), so your
            app can check that a request really came from Rehook.
          </p>
        </div>
      </div>
      {endpoints.length === 0 ? (
        <EmptyState title="Nothing to sign yet">
          <p>Signing secrets appear here once you create an endpoint.</p>
        </EmptyState>
      ) : (
        <ul className="secret-list">
          {endpoints.map((endpoint) => (
            <SecretRow key={endpoint.id} endpoint={endpoint} result={result?.intent === "rotateSecret" && result.id === endpoint.id ? result : null} />
          ))}
        </ul>
      )}
    </section>
  );
}

function SecretRow({ endpoint, result }: { endpoint: { id: string; name: string }; result: ActionResult | null }) {
  const [secret, setSecret] = useState<string | null>(null);
  const [revealing, setRevealing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const pending = usePendingIntent();
  const rotating = pending.intent === "rotateSecret" && pending.id === endpoint.id;
  const rotated = result?.ok && result.secret ? result.secret : null;

  useEffect(() => {
    if (rotated) {
      setSecret(rotated);
      setConfirming(false);
    }
  }, [rotated]);
  useEffect(() => {
    if (result && !result.ok) setConfirming(false);
  }, [result]);

  async function reveal() {
    setRevealing(true);
    setError(null);
    try {
      const answer = await trpc().endpoints.secret.query({ id: endpoint.id });
      setSecret(answer.secret);
    } catch (cause) {
      setError(errorMessage(cause));
    } finally {
      setRevealing(false);
    }
  }

  return (
    <li className="secret-row" data-testid="secret-row">
      <div className="secret-main">
        <p className="secret-name">{endpoint.name}</p>
        <div className="secret-value-row">
          {secret ? (
            <code className="copy-field-value secret-value" data-testid="secret-value">
              {secret}
            </code>
          ) : (
            <code className="copy-field-value secret-masked">
              whsec_••••••••••••
            </code>
          )}
          <div className="secret-actions">
            {secret ? (
              <>
                <CopyButton text={secret} />
                <button type="button" className="button ghost small" onClick={() => setSecret(null)}>
                  Hide
                </button>
              </>
            ) : (
              <button type="button" className="button secondary small" onClick={reveal} disabled={revealing}>
                {revealing ? "Revealing…" : "Reveal"}
              </button>
            )}
            <button type="button" className="button ghost small" onClick={() => setConfirming(true)}>
              <Icon name="refresh" />
              Regenerate
            </button>
          </div>
        </div>
        {rotated && secret === rotated ? (
          <p className="hint success-text" data-testid="secret-rotated">
            New secret generated. Update your app’s verification with it.
          </p>
        ) : null}
        <FormError message={error ?? (result && !result.ok ? `Could not regenerate the secret: ${result.error}` : null)} />
      </div>

      <ConfirmDialog
        open={confirming}
        onClose={() => setConfirming(false)}
        title={`Regenerate the secret for “${endpoint.name}”?`}
        description={
          <p>
            A new signing secret is created and the old secret stops working immediately: signatures made with it no longer verify. Update every app
            that checks signatures from this endpoint.
          </p>
        }
      >
        <button type="button" className="button secondary" onClick={() => setConfirming(false)} autoFocus>
          Cancel
        </button>
        <Form method="post" preventScrollReset>
          <input type="hidden" name="intent" value="rotateSecret" />
          <input type="hidden" name="id" value={endpoint.id} />
          <button type="submit" className="button danger" disabled={rotating}>
            {rotating ? "Regenerating…" : "Regenerate secret"}
          </button>
        </Form>
      </ConfirmDialog>
    </li>
  );
}

type NotificationSettings = {
  enabled: boolean;
  webhook_url: string | null;
  triggers: string[];
  paused_reason: string | null;
  last_error: string | null;
};

function Notifications({ settings, result }: { settings: NotificationSettings; result: ActionResult }) {
  const pending = usePendingIntent();
  const saving = pending.intent === "saveNotifications";
  const own = result?.intent === "saveNotifications" ? result : null;
  const formKey = [settings.enabled, settings.webhook_url, settings.triggers.join(",")].join("|");
  return (
    <section className="card settings-section" id="notifications" aria-labelledby="notifications-title">
      <div className="card-header">
        <div>
          <h2 id="notifications-title" className="card-title">
            <Icon name="bell" /> Notifications
          </h2>
          <p className="card-description">Get a chat message (Slack incoming webhook) when deliveries fail, succeed or events are captured.</p>
        </div>
        <span className={`badge ${settings.enabled && !settings.paused_reason ? "badge-delivered" : settings.paused_reason ? "badge-pending" : "badge-neutral"}`}>
          <span className="badge-dot" aria-hidden="true" />
          {settings.paused_reason ? "Paused" : settings.enabled ? "On" : "Off"}
        </span>
      </div>

      {settings.paused_reason ? (
        <div className="banner banner-warning" data-testid="notifications-paused">
          <span className="alert-icon" aria-hidden="true">
            !
          </span>
          <div>
            <p className="banner-title">Notifications are paused</p>
            <p>{settings.paused_reason}</p>
            <p className="small">Save a new webhook URL to resume them.</p>
          </div>
        </div>
      ) : null}
      {settings.last_error ? (
        <p className="note" data-testid="notifications-last-error">
          <strong>Last error:</strong> {settings.last_error}
        </p>
      ) : null}

      <Form method="post" className="form-stack" key={formKey} noValidate preventScrollReset>
        <input type="hidden" name="intent" value="saveNotifications" />
        <div className="checkbox-field">
          <input id="notify-enabled" name="enabled" type="checkbox" defaultChecked={settings.enabled} />
          <div>
            <label htmlFor="notify-enabled">Enable notifications</label>
          </div>
        </div>
        <div className="field">
          <label htmlFor="notify-url">Webhook URL</label>
          <input
            id="notify-url"
            name="webhookUrl"
            type="text"
            inputMode="url"
            spellCheck={false}
            autoComplete="off"
            placeholder="https://hooks.slack.com/services/…"
            defaultValue={settings.webhook_url ?? ""}
            aria-describedby="notify-url-hint"
          />
          <small id="notify-url-hint" className="hint">
            A Slack incoming-webhook URL. It is kept private and only used for these messages.
          </small>
        </div>
        <fieldset className="fieldset">
          <legend>Notify me when an event is</legend>
          <div className="checkbox-grid">
            {TRIGGERS.map((trigger) => (
              <div className="checkbox-field boxed" key={trigger.value}>
                <input
                  id={`trigger-${trigger.value}`}
                  name="triggers"
                  type="checkbox"
                  value={trigger.value}
                  defaultChecked={settings.triggers.includes(trigger.value)}
                  aria-describedby={`trigger-${trigger.value}-hint`}
                />
                <div>
                  <label htmlFor={`trigger-${trigger.value}`}>{trigger.label}</label>
                  <small id={`trigger-${trigger.value}-hint`} className="hint">
                    {trigger.hint}
                  </small>
                </div>
              </div>
            ))}
          </div>
        </fieldset>
        <div className="form-actions">
          <button type="submit" className="button primary" disabled={saving}>
            {saving ? "Saving…" : "Save notifications"}
          </button>
          {own?.ok ? <FormSuccess message="Notification settings saved" /> : null}
        </div>
        {own && !own.ok ? <FormError message={own.error} /> : null}
      </Form>
    </section>
  );
}

export function ErrorBoundary() {
  return <RouteError />;
}
