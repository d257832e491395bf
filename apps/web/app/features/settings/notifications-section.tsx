import { Form } from "@remix-run/react";
import { Badge } from "../../components/badges";
import { CheckboxField, SubmitButton, UrlField } from "../../components/form-fields";
import { Alert, FormError, FormSuccess, Icon } from "../../components/ui";
import type { ActionReply } from "./action-reply";
import { LastErrorNotice, PausedNotice, ProviderMessage } from "./notification-banners";
import { Section, usePendingIntent } from "./section";
import { TRIGGERS } from "./triggers";

type NotificationSettings = {
  enabled: boolean;
  webhookUrl: string | null;
  triggers: string[];
  pausedReason: string | null;
  lastError: string | null;
};

/** Chat notifications: on or off, the webhook URL, what triggers them; save and send a test. */
export function NotificationsSection({ settings, result }: { settings: NotificationSettings; result: ActionReply | undefined }) {
  const pending = usePendingIntent();
  const saving = pending.intent === "saveNotifications";
  const testing = pending.intent === "testNotification";
  const saved = !saving && result?.intent === "saveNotifications" ? result : null;
  const tested = !testing && result?.intent === "testNotification" ? result : null;
  const formKey = [settings.enabled, settings.webhookUrl, settings.triggers.join(",")].join("|");
  const paused = settings.pausedReason;
  // Pausing records its reason as the last error too: show it once, in the banner.
  const lastError = settings.lastError && settings.lastError !== paused ? settings.lastError : null;
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
      {paused ? <PausedNotice reason={paused} /> : null}
      {lastError ? <LastErrorNotice error={lastError} /> : null}

      <Form method="post" className="form-stack" key={formKey} noValidate preventScrollReset>
        <CheckboxField id="notify-enabled" label="Enable notifications" name="enabled" defaultChecked={settings.enabled} />
        <UrlField
          id="notify-url"
          label="Webhook URL"
          hint="A Slack incoming-webhook URL. It is kept private and only used for these messages."
          name="webhookUrl"
          placeholder="https://hooks.slack.com/services/…"
          defaultValue={settings.webhookUrl ?? ""}
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
