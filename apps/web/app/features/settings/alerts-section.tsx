import { Form, type useLoaderData } from "@remix-run/react";
import { ALERT_CHANNEL_LABELS, ALERT_CHANNELS, ALERT_TRIGGER_LABELS, ALERT_TRIGGERS, type AlertChannel } from "@rehook/core/browser";
import { Badge } from "../../components/badges";
import { IntentButton, SubmitButton, TextField, UrlField } from "../../components/form-fields";
import { RelativeTime } from "../../components/relative-time";
import { Alert, FormError, FormSuccess, Icon } from "../../components/ui";
import type { ActionReply } from "./action-reply";
import { Section, usePendingIntent } from "./section";
import type { loadSettingsPage } from "./settings-data.server";

/** A rule as the Settings loader answers it (alerts.list, serialized). */
type AlertRuleRow = NonNullable<ReturnType<typeof useLoaderData<typeof loadSettingsPage>>["alerts"]>[number];

const TARGET_HINTS: Record<AlertChannel, string> = {
  slack: "A Slack incoming-webhook URL.",
  discord: "A Discord channel webhook URL (Server settings → Integrations → Webhooks).",
  teams: "A Microsoft Teams workflow URL (“Post to a channel when a webhook request is received”).",
  email: "An email address. Needs SMTP_URL on the server.",
  webhook: "Any https URL. Each alert is signed with the rule's whsec_ secret (Standard Webhooks).",
};

/** What the rule watches, in words: "Health fell below 90%". */
function triggerText(rule: Pick<AlertRuleRow, "trigger" | "threshold">): string {
  if (rule.trigger === "health_low") return `Health below ${rule.threshold}%`;
  if (rule.trigger === "signature_invalid_rate") return `Invalid signatures above ${rule.threshold}%`;
  return ALERT_TRIGGER_LABELS[rule.trigger];
}

/** The team's alert rules: each with its state and last result, a test button, on/off and delete; a form adds one. */
export function AlertsSection({ rules, endpoints, result }: { rules: AlertRuleRow[]; endpoints: Array<{ id: string; name: string }>; result: ActionReply | undefined }) {
  const pending = usePendingIntent();
  const created = pending.intent !== "createAlert" && result?.intent === "createAlert" ? result : null;
  const rowReply = (id: string) => (result && result.id === id && ["testAlert", "toggleAlert", "deleteAlert"].includes(result.intent) ? result : null);
  return (
    <Section
      id="alerts"
      icon="bell"
      title="Alert rules"
      description="Be told where the team already looks when deliveries fail, a breaker pauses a destination, health or signatures go bad, or a bulk replay finishes."
    >
      {rules.length === 0 ? <p className="muted">No alert rules yet. Add one below.</p> : null}
      <ul className="alert-rules" aria-label="Alert rules">
        {rules.map((rule) => {
          const replied = rowReply(rule.id);
          return (
            <li key={rule.id} className="alert-rule" data-testid="alert-rule" data-rule-id={rule.id}>
              <div className="alert-rule-head">
                <strong className="break">{rule.name}</strong>
                <Badge tone={rule.pausedReason ? "paused" : rule.enabled ? "delivered" : "neutral"} data-testid="alert-rule-state">
                  {rule.pausedReason ? "Paused" : rule.enabled ? "On" : "Off"}
                </Badge>
              </div>
              <p className="muted small">
                {triggerText(rule)} · {rule.endpoint ? rule.endpoint.name : "every endpoint"} · {ALERT_CHANNEL_LABELS[rule.channel]}
              </p>
              <p className="small break alert-rule-target">{rule.target}</p>
              {rule.secret ? (
                <details className="small">
                  <summary>Signing secret</summary>
                  <code className="break">{rule.secret}</code>
                </details>
              ) : null}
              {rule.pausedReason ? (
                <Alert tone="error" role="status">
                  Paused: {rule.pausedReason}. Fix the channel, then Resume.
                </Alert>
              ) : null}
              <p className="small" data-testid="alert-rule-last">
                {rule.lastResult ? (
                  <>
                    Last: <span className={rule.lastResult.ok ? "alert-result-ok" : "alert-result-failed"}>{rule.lastResult.text}</span>, <RelativeTime value={rule.lastResult.at} />
                  </>
                ) : (
                  <span className="muted">Nothing sent yet.</span>
                )}
              </p>
              <div className="form-actions">
                <IntentButton intent="testAlert" id={rule.id} preventScrollReset busy={pending.intent === "testAlert" && pending.id === rule.id} busyLabel="Sending…" className="button secondary">
                  <Icon name="send" /> Send a test
                </IntentButton>
                <IntentButton
                  intent="toggleAlert"
                  id={rule.id}
                  fields={{ enabled: rule.enabled && !rule.pausedReason ? "false" : "true" }}
                  preventScrollReset
                  busy={pending.intent === "toggleAlert" && pending.id === rule.id}
                  busyLabel="Saving…"
                  className="button secondary"
                >
                  {rule.pausedReason ? "Resume" : rule.enabled ? "Turn off" : "Turn on"}
                </IntentButton>
                <IntentButton intent="deleteAlert" id={rule.id} preventScrollReset busy={pending.intent === "deleteAlert" && pending.id === rule.id} busyLabel="Deleting…" className="button danger-outline">
                  Delete
                </IntentButton>
              </div>
              {replied?.ok && replied.message ? (
                <Alert tone="success" role="status" testId="alert-rule-reply">
                  {replied.message}
                </Alert>
              ) : null}
              {replied && !replied.ok ? (
                <Alert tone="error" role="alert" testId="alert-rule-reply">
                  {replied.error}
                </Alert>
              ) : null}
            </li>
          );
        })}
      </ul>

      <Form method="post" className="form-stack alert-rule-form" preventScrollReset noValidate key={created?.ok ? created.id : "new"}>
        <h3>Add a rule</h3>
        <TextField id="alert-name" label="Name" name="name" placeholder="Payments on call" maxLength={100} />
        <div className="field">
          <label htmlFor="alert-trigger">When</label>
          <select id="alert-trigger" name="trigger" defaultValue="delivery_failed">
            {ALERT_TRIGGERS.map((trigger) => (
              <option key={trigger} value={trigger}>
                {ALERT_TRIGGER_LABELS[trigger]}
              </option>
            ))}
          </select>
        </div>
        <TextField id="alert-threshold" label="Threshold (%)" name="threshold" type="number" min={1} max={100} hint="For the health and invalid-signature triggers: less than this percent delivered, or more than this percent invalid, over 15 minutes." />
        <div className="field">
          <label htmlFor="alert-endpoint">Endpoint</label>
          <select id="alert-endpoint" name="endpointId" defaultValue="">
            <option value="">Every endpoint</option>
            {endpoints.map((endpoint) => (
              <option key={endpoint.id} value={endpoint.id}>
                {endpoint.name}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="alert-channel">Send to</label>
          <select id="alert-channel" name="channel" defaultValue="slack" aria-describedby="alert-channel-hint">
            {ALERT_CHANNELS.map((channel) => (
              <option key={channel} value={channel}>
                {ALERT_CHANNEL_LABELS[channel]}
              </option>
            ))}
          </select>
          <small id="alert-channel-hint" className="hint">
            {ALERT_CHANNELS.map((channel) => `${ALERT_CHANNEL_LABELS[channel]}: ${TARGET_HINTS[channel]}`).join(" ")}
          </small>
        </div>
        <UrlField id="alert-target" label="URL or email address" name="target" placeholder="https://…" />
        <div className="form-actions">
          <SubmitButton name="intent" value="createAlert" busy={pending.intent === "createAlert"} busyLabel="Adding…">
            Add rule
          </SubmitButton>
          <FormSuccess message={created?.ok ? "Alert rule added" : null} />
        </div>
        <FormError message={created && !created.ok ? created.error : null} />
      </Form>
    </Section>
  );
}
