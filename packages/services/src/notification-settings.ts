import { auditChanges, checkChatHookUrl, judgeChatPost, notificationMessage, NOTIFICATION_TRIGGERS, UserError, withPrivateDestinationHint, type NotificationTrigger } from "@rehook/core";
import { findNotificationSettings, saveNotificationSettings as storeSettings, type NotificationSettings } from "@rehook/db";
import { z } from "zod";
import type { ServiceContext } from "./context.js";
import { parseInput } from "./validation.js";
import { recordAudit, type AuditedBy } from "./audit.js";

export interface NotificationSettingsView {
  enabled: boolean;
  webhookUrl: string | null;
  triggers: NotificationTrigger[];
  /** Why posting stopped (a fatal answer from the provider), until a new URL is saved. */
  pausedReason: string | null;
  lastError: string | null;
}

function view(settings: NotificationSettings | null): NotificationSettingsView {
  if (!settings) return { enabled: false, webhookUrl: null, triggers: ["failed"], pausedReason: null, lastError: null };
  return {
    enabled: settings.enabled,
    webhookUrl: settings.webhookUrl,
    triggers: settings.triggers.filter((t): t is NotificationTrigger => (NOTIFICATION_TRIGGERS as readonly string[]).includes(t)),
    pausedReason: settings.pausedReason,
    lastError: settings.lastError,
  };
}

export async function getNotificationSettings(ctx: Pick<ServiceContext, "orm">, input: { teamId: string }): Promise<NotificationSettingsView> {
  return view(await findNotificationSettings(ctx.orm.em.fork(), input.teamId));
}

const settingsInput = z.object({
  enabled: z.boolean(),
  webhookUrl: z.string().nullable(),
  triggers: z.array(z.enum(NOTIFICATION_TRIGGERS)).max(3),
});

/** Saves the settings. Notifications can only be on with a valid URL and at least one trigger. */
export async function saveNotificationSettings(
  ctx: Pick<ServiceContext, "orm" | "chatHooksBase">,
  input: { teamId: string; by?: AuditedBy; enabled: boolean; webhookUrl: string | null; triggers: NotificationTrigger[] },
): Promise<NotificationSettingsView> {
  const { enabled, webhookUrl, triggers } = parseInput(settingsInput, input);
  let url: string | null = null;
  if (webhookUrl !== null && webhookUrl !== "") {
    const checked = checkChatHookUrl(webhookUrl, ctx.chatHooksBase);
    if (!checked.ok) throw new UserError("validation_failed", `webhook URL refused: ${withPrivateDestinationHint(checked.reason)}`);
    url = checked.url;
  }
  if (enabled && !url) throw new UserError("validation_failed", "Enter the incoming-webhook URL to turn notifications on.");
  if (enabled && triggers.length === 0) throw new UserError("validation_failed", "Choose at least one trigger to turn notifications on.");
  const unique = NOTIFICATION_TRIGGERS.filter((trigger) => triggers.includes(trigger));
  return ctx.orm.em.fork().transactional(async (em) => {
    const before = view(await findNotificationSettings(em, input.teamId));
    const after = view(await storeSettings(em, input.teamId, { enabled, webhookUrl: url, triggers: unique }));
    // An incoming-webhook URL lets anyone post to the channel: a secret, "changed" only.
    const changes = auditChanges(before, after, { fields: ["enabled", "webhookUrl", "triggers"], secrets: ["webhookUrl"] });
    if (changes) await recordAudit(em, input.by, { teamId: input.teamId, action: "notifications.update", target: { type: "notifications", id: input.teamId, name: null }, changes });
    return after;
  });
}

/** What a team's chat hook is in the send ledger (its "rule": one test every 30 s). */
const notificationsSubject = (teamId: string) => `notifications:${teamId}`;

/**
 * Posts a sample message to the saved hook now and says how the provider answered (with
 * the fix when it refused). Does not pause notifications: the button is for trying a URL out.
 * Paced like an alert rule's test, through the same ledger: one every 30 s for the hook, and
 * it counts against the team's and the user's tests of the hour (`rate_limited` past them).
 */
export async function sendTestNotification(
  ctx: Pick<ServiceContext, "orm" | "chat" | "baseUrl" | "alerts" | "now">,
  input: { teamId: string; by?: AuditedBy },
): Promise<{ ok: boolean; message: string }> {
  const settings = await findNotificationSettings(ctx.orm.em.fork(), input.teamId);
  if (!settings?.webhookUrl) throw new UserError("unprocessable", "Save an incoming-webhook URL first, then send the test message.");
  if (!ctx.alerts) throw new UserError("unavailable", "Alerts are not running on this server.");
  const nowMs = (ctx.now ?? Date.now)();
  const refused = await ctx.alerts.reserveTest({ teamId: input.teamId, subject: notificationsSubject(input.teamId), email: false, tested: "chat hook" }, { userId: input.by?.userId ?? null, nowMs });
  if (refused) throw new UserError("rate_limited", refused.message, { retryAfterSeconds: Math.ceil(refused.refusal.retryAfterMs / 1000) });
  const sample = notificationMessage(
    {
      id: "00000000-0000-7000-8000-000000000000",
      trigger: "failed",
      source: "stripe",
      eventType: "payment_intent.succeeded",
      endpointName: "test message",
      destinationUrl: "https://api.example.com/webhooks",
      latencyMs: 503,
      responseStatus: 503,
      error: null,
      at: new Date(nowMs),
    },
    `${ctx.baseUrl}/events`,
  );
  const result = await ctx.chat.post(settings.webhookUrl, sample);
  const verdict = judgeChatPost(
    { status: result.status, body: result.body ? Buffer.from(result.body).toString("utf8") : "", retryAfter: null, error: result.error },
    0,
    1,
  );
  if (verdict.kind === "posted") return { ok: true, message: "Test message sent: check the channel." };
  return { ok: false, message: verdict.reason };
}
