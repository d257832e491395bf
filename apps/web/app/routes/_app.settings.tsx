import { type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { useEffect, useState } from "react";
import { ConfirmDialog } from "../components/confirm-dialog";
import { Badge } from "../components/badges";
import { CopyButton } from "../components/copy-button";
import { DataTable } from "../components/data-table";
import { CheckboxField, IntentButton, SubmitButton, TextField, UrlField } from "../components/form-fields";
import { useResetAfterCreate } from "../components/hooks";
import { Invites } from "../components/invites";
import { RelativeTime } from "../components/relative-time";
import { Alert, Card, CopyField, EmptyState, FormError, FormSuccess, Icon, PageHeader, RouteError } from "../components/ui";
import { errorMessage, hasCode } from "../lib/errors";
import { trpc } from "../lib/trpc.client";
import { requireUser } from "../lib/session.server";

export const meta: MetaFunction = () => [{ title: "Settings · Rehook" }];

const TRIGGERS = [
  { value: "failed", label: "Failed", hint: "Recommended: a delivery your app did not accept." },
  { value: "delivered", label: "Delivered", hint: "Can be noisy at volume." },
  { value: "captured", label: "Captured", hint: "For endpoints without a destination URL." },
] as const;
type Trigger = (typeof TRIGGERS)[number]["value"];
const isTrigger = (value: unknown): value is Trigger => TRIGGERS.some((trigger) => trigger.value === value);

export async function loader({ request, context }: LoaderFunctionArgs) {
  requireUser(context, request);
  const [apiKeys, endpoints, notifications, invites] = await Promise.all([
    context.caller.apiKeys.list(),
    context.caller.endpoints.list(),
    context.caller.notifications.get(),
    context.caller.invites.list(),
  ]);
  return {
    apiKeys,
    invites,
    endpoints: endpoints.map((endpoint) => ({ id: endpoint.id, name: endpoint.name, webhook_url: endpoint.webhook_url })),
    notifications,
  };
}

/** What every action answers: the intent it ran, and the fields the sections read. */
interface ActionReply {
  intent: string;
  ok: boolean;
  /** The key, endpoint or row acted on. */
  id: string | null;
  /** A new API key (shown once) and its name. */
  key: string | null;
  name: string | null;
  /** A regenerated signing secret. */
  secret: string | null;
  /** A success message to show (the test message's answer). */
  message: string | null;
  /** A second line under the message. */
  note: string | null;
  error: string | null;
}

const reply = (intent: string, fields: Partial<Omit<ActionReply, "intent">> = {}): ActionReply => ({
  intent,
  ok: true,
  id: null,
  key: null,
  name: null,
  secret: null,
  message: null,
  note: null,
  error: null,
  ...fields,
});

export async function action({ request, context }: ActionFunctionArgs): Promise<ActionReply> {
  requireUser(context, request);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const id = String(form.get("id") ?? "");
  try {
    switch (intent) {
      case "createKey": {
        const created = await context.caller.apiKeys.create({ name: String(form.get("name") ?? "") });
        return reply(intent, { id: created.apiKey.id, key: created.key, name: created.apiKey.name });
      }
      case "createInvite": {
        const created = await context.caller.invites.create();
        return reply(intent, { id: created.invite.id, key: created.url });
      }
      case "revokeInvite":
        await context.caller.invites.revoke({ id });
        return reply(intent, { id });
      case "revokeKey":
        await context.caller.apiKeys.revoke({ id });
        return reply(intent, { id });
      case "rotateSecret": {
        const rotated = await context.caller.endpoints.rotateSecret({ id });
        return reply(intent, { id, secret: rotated.secret });
      }
      case "saveNotifications": {
        const webhookUrl = String(form.get("webhookUrl") ?? "");
        await context.caller.notifications.save({
          enabled: form.get("enabled") !== null,
          webhookUrl: webhookUrl.trim() === "" ? null : webhookUrl,
          triggers: form.getAll("triggers").filter(isTrigger),
        });
        return reply(intent);
      }
      case "testNotification": {
        // The test goes to the SAVED URL: say so when the field holds another, unsaved one.
        const [sent, saved] = await Promise.all([context.caller.notifications.sendTest(), context.caller.notifications.get()]);
        const typed = String(form.get("webhookUrl") ?? "").trim();
        const note =
          typed !== "" && saved.webhook_url !== null && typed !== saved.webhook_url
            ? "This went to the saved URL, not the one in the field: save the new URL first to try it."
            : null;
        return sent.ok
          ? reply(intent, { message: sent.message, note })
          : reply(intent, { ok: false, message: "The provider refused the test message.", error: sent.message, note });
      }
      default:
        return reply(intent, { ok: false, error: "unknown action: reload the page and try again" });
    }
  } catch (error) {
    const message = hasCode(error, "NOT_FOUND") ? "it no longer exists: reload the page" : errorMessage(error);
    return reply(intent, { ok: false, id: id || null, error: message });
  }
}

type ActionResult = ActionReply | undefined;

export default function Settings() {
  const { apiKeys, endpoints, notifications, invites } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  return (
    <>
      <PageHeader title="Settings" description="API access, signing secrets and notifications for your account." />
      <nav className="section-nav" aria-label="Settings sections">
        <a href="#api-keys">API keys</a>
        <a href="#security">Security</a>
        <a href="#notifications">Notifications</a>
        {invites.isAdmin ? <a href="#invites">Invites</a> : null}
      </nav>
      <ApiKeys apiKeys={apiKeys} result={result} />
      <Security endpoints={endpoints} result={result} />
      <Notifications settings={notifications} result={result} />
      {invites.isAdmin ? (
        <Section id="invites" icon="plus" title="Invites" description="One-time links that let someone create an account when SIGNUP=invite. Each works once and for 7 days.">
          <Invites invites={invites.invites} result={result} />
        </Section>
      ) : null}
    </>
  );
}

function usePendingIntent(): { intent: string | null; id: string | null } {
  const navigation = useNavigation();
  if (navigation.state !== "submitting" || !navigation.formData) return { intent: null, id: null };
  return { intent: String(navigation.formData.get("intent") ?? ""), id: String(navigation.formData.get("id") ?? "") || null };
}

/** One settings section: a card with an icon in its title, and an id the section links jump to. */
function Section({ icon, title, ...card }: Omit<Parameters<typeof Card>[0], "title" | "className"> & { id: string; icon: Parameters<typeof Icon>[0]["name"]; title: string }) {
  return (
    <Card
      className="settings-section"
      title={
        <>
          <Icon name={icon} /> {title}
        </>
      }
      {...card}
    />
  );
}

type ApiKeyRow = { id: string; name: string; prefix: string; created_at: string; last_used_at: string | null; revoked_at: string | null };

function ApiKeys({ apiKeys, result }: { apiKeys: ApiKeyRow[]; result: ActionResult }) {
  const pending = usePendingIntent();
  const created = result?.intent === "createKey" && result.ok ? result : null;
  const formRef = useResetAfterCreate(created);
  const createError = result?.intent === "createKey" && !result.ok ? result.error : null;
  const revokeResult = result?.intent === "revokeKey" ? result : null;
  const active = apiKeys.filter((key) => !key.revoked_at).length;

  return (
    <Section
      id="api-keys"
      icon="key"
      title="API keys"
      description={
        <>
          Use a key in the <code className="inline-code">Authorization: Bearer …</code> header to call the Rehook API from scripts and CI.
        </>
      }
    >
      <Form method="post" className="inline-form" ref={formRef} noValidate>
        <input type="hidden" name="intent" value="createKey" />
        <TextField id="key-name" label="Key name" name="name" required maxLength={100} autoComplete="off" placeholder="CI deploys" />
        <SubmitButton busy={pending.intent === "createKey"} busyLabel="Generating…">
          Generate key
        </SubmitButton>
      </Form>
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
            className="keys-table"
            caption={`API keys (${active} active)`}
            columns={["Name", "Key", "Created", "Last used", { label: <span className="sr-only">Actions</span> }]}
          >
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
                      <Badge tone="revoked" dot={false} title={`Revoked ${new Date(key.revoked_at).toISOString().slice(0, 10)}`}>
                        Revoked
                      </Badge>
                    ) : (
                      <IntentButton intent="revokeKey" id={key.id} className="button danger-outline small" busy={revoking} busyLabel="Revoking…">
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

function Security({ endpoints, result }: { endpoints: Array<{ id: string; name: string }>; result: ActionResult }) {
  return (
    <Section
      id="security"
      icon="shield"
      title="Security"
      description={
        <>
          Each endpoint has a signing secret. When “Sign forwarded requests” is on, Rehook signs what it forwards with it (Standard Webhooks), so your app
          can check that a request really came from Rehook.
        </>
      }
    >
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
    </Section>
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
        <IntentButton intent="rotateSecret" id={endpoint.id} preventScrollReset className="button danger" busy={rotating} busyLabel="Regenerating…">
          Regenerate secret
        </IntentButton>
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

/**
 * A provider's answer ("channel_not_found: the channel … : recreate the hook …") with its
 * error string set off, so the code stands out from the fix. The text stays the same.
 */
function ProviderMessage({ text }: { text: string }) {
  const match = /^([a-z][a-z0-9_]*|HTTP \d{3}): (.+)$/s.exec(text);
  if (!match) return <>{text}</>;
  return (
    <>
      <code className="provider-code">{match[1]}</code>: {match[2]}
    </>
  );
}

function Notifications({ settings, result }: { settings: NotificationSettings; result: ActionResult }) {
  const pending = usePendingIntent();
  const saving = pending.intent === "saveNotifications";
  const testing = pending.intent === "testNotification";
  const saved = !saving && result?.intent === "saveNotifications" ? result : null;
  const tested = !testing && result?.intent === "testNotification" ? result : null;
  const formKey = [settings.enabled, settings.webhook_url, settings.triggers.join(",")].join("|");
  const paused = settings.paused_reason;
  // Pausing records its reason as the last error too: show it once, in the banner.
  const lastError = settings.last_error && settings.last_error !== paused ? settings.last_error : null;
  return (
    <Section
      id="notifications"
      icon="bell"
      title="Notifications"
      description="Get a chat message (Slack incoming webhook) when deliveries fail, succeed or events are captured."
      actions={
        <Badge tone={paused ? "paused" : settings.enabled ? "delivered" : "neutral"} data-testid="notifications-state">
          {paused ? "Paused" : settings.enabled ? "On" : "Off"}
        </Badge>
      }
    >
      {paused ? (
        <div className="banner banner-warning" data-testid="notifications-paused">
          <span className="alert-icon" aria-hidden="true">
            !
          </span>
          <div className="banner-body">
            <p className="banner-title">Notifications are paused</p>
            <p>
              The provider refused the last message: <ProviderMessage text={paused} />
            </p>
            <p className="banner-next">
              <strong>Saving a new webhook URL resumes notifications.</strong> Nothing is posted until then.
            </p>
          </div>
        </div>
      ) : null}
      {lastError ? (
        <div className="banner banner-error" data-testid="notifications-last-error">
          <span className="alert-icon" aria-hidden="true">
            !
          </span>
          <div className="banner-body">
            <p className="banner-title">Last error</p>
            <p>
              <ProviderMessage text={lastError} />
            </p>
            <p className="banner-next">Notifications stay on. If the URL changed, saving the new one resumes normal posting.</p>
          </div>
        </div>
      ) : null}

      <Form method="post" className="form-stack" key={formKey} noValidate preventScrollReset>
        <CheckboxField id="notify-enabled" label="Enable notifications" name="enabled" defaultChecked={settings.enabled} />
        <UrlField
          id="notify-url"
          label="Webhook URL"
          hint="A Slack incoming-webhook URL. It is kept private and only used for these messages."
          name="webhookUrl"
          placeholder="https://hooks.slack.com/services/…"
          defaultValue={settings.webhook_url ?? ""}
        />
        <fieldset className="fieldset">
          <legend>Notify me when an event is</legend>
          <div className="checkbox-grid">
            {TRIGGERS.map((trigger) => (
              <CheckboxField
                key={trigger.value}
                boxed
                id={`trigger-${trigger.value}`}
                label={trigger.label}
                hint={trigger.hint}
                name="triggers"
                value={trigger.value}
                defaultChecked={settings.triggers.includes(trigger.value)}
              />
            ))}
          </div>
        </fieldset>
        <div className="notify-actions">
          <div className="form-actions">
            {/* First in the form, so Enter in the URL field saves. */}
            <SubmitButton name="intent" value="saveNotifications" busy={saving} busyLabel="Saving…">
              Save notifications
            </SubmitButton>
            <SubmitButton
              name="intent"
              value="testNotification"
              className="button secondary"
              icon={<Icon name="send" />}
              busy={testing}
              busyLabel="Sending…"
              describedBy="notify-test-hint"
            >
              Send test message
            </SubmitButton>
            <FormSuccess message={saved?.ok ? "Notification settings saved" : null} />
            {tested?.ok ? (
              <Alert tone="success" role="status" testId="notifications-test-result">
                {tested.message}
              </Alert>
            ) : null}
          </div>
          {tested && !tested.ok ? (
            <Alert tone="error" role="alert" testId="notifications-test-result">
              <span>
                {tested.message ? <strong className="alert-lead">{tested.message}</strong> : null}
                <ProviderMessage text={tested.error ?? "the test message was not sent"} />
              </span>
            </Alert>
          ) : null}
          {tested?.note ? <p className="hint">{tested.note}</p> : null}
          <p id="notify-test-hint" className="hint">
            The test posts a sample message to the saved URL, even while notifications are off or paused.
          </p>
        </div>
        <FormError message={saved && !saved.ok ? saved.error : null} />
      </Form>
    </Section>
  );
}

export function ErrorBoundary() {
  return <RouteError />;
}
