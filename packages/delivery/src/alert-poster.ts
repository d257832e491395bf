import {
  alertRequest,
  bulkReplayFinishedAlert,
  deliveryFailedAlert,
  destinationPausedAlert,
  emailMessage,
  healthLowAlert,
  judgeAlertPost,
  judgeEmailSend,
  signatureInvalidAlert,
  summaryAlert,
  uuidv7,
  ALERTS_PER_POST,
  type Alert,
  type AlertChannel,
  type ChatMetrics,
  type ChatPostVerdict,
  type Logger,
} from "@rehook/core";
import { ALERT_JOB, dueAlerts, finishAlertRule, postableAlertRule, type DueAlert, type JobHandler, type JobVerdict, type Pool, type PostableRule } from "@rehook/db";
import { channelJobVerdict, channelOutcome } from "./channel-outcome.js";
import type { Mailer } from "./mailer.js";
import type { DeliveryPool } from "./pool.js";

export interface AlertPosterOptions {
  db: Pool;
  deliveries: DeliveryPool;
  /** Links in alerts point into the dashboard here. */
  baseUrl: string;
  allowPrivate: boolean;
  /** Email alerts go out through it (SMTP_URL); absent, an email rule's alerts fail with the reason. */
  mailer?: Mailer;
  logger: Logger;
  /** At most one post per rule per this interval; what comes due meanwhile is folded into one summary. */
  paceMs?: number;
  postTimeoutMs?: number;
  metrics?: ChatMetrics;
  /** The clock of the webhook channel's signature timestamps (tests; unset: Date.now). */
  now?: () => number;
}

/** The alert a due outbox row announces, as its data is now (null: what it pointed at is gone). */
export function alertOf(row: DueAlert, baseUrl: string): Alert | null {
  const endpointName = row.endpointName ?? "a deleted endpoint";
  const endpointUrl = row.endpointId ? `${baseUrl}/endpoints/${row.endpointId}` : `${baseUrl}/`;
  const detail = row.detail ?? {};
  const count = (key: string) => (typeof detail[key] === "number" ? (detail[key] as number) : 0);
  switch (row.kind) {
    case "delivery_failed":
      if (!row.eventId || row.eventType === null) return null;
      return deliveryFailedAlert({ ...row, eventType: row.eventType, endpointName, url: `${baseUrl}/events/${row.eventId}` });
    case "destination_paused":
      // Resumed before the post: nothing to say any more.
      if (!row.pausedReason) return null;
      return destinationPausedAlert({ endpointName, destinationName: row.destinationName ?? "a destination", reason: row.pausedReason, at: row.at, url: endpointUrl });
    case "health_low":
      return healthLowAlert({ endpointName, delivered: count("part"), total: count("total"), threshold: count("threshold"), at: row.at, url: endpointUrl });
    case "signature_invalid_rate":
      return signatureInvalidAlert({ endpointName, invalid: count("part"), total: count("total"), threshold: count("threshold"), at: row.at, url: endpointUrl });
    case "bulk_replay_finished":
      return bulkReplayFinishedAlert({
        endpointName,
        done: count("done"),
        delivered: count("delivered"),
        failed: count("failed"),
        at: row.at,
        url: endpointUrl,
      });
    default:
      return null;
  }
}

/**
 * Posts due alerts from the outbox, as the job runner's "alert" jobs: one job per rule (so
 * one instance posts for a rule at a time), enqueued with the outbox row. A rule posts at
 * most once per `paceMs`; what came due meanwhile is one summary. HTTP channels go through
 * the delivery workers and the safe agent; email through the mailer. Outbox rows are deleted
 * only once their post is answered, so a crash re-posts, never loses.
 */
export class AlertPoster {
  constructor(private readonly options: AlertPosterOptions) {}

  /** Sends one alert to a rule's channel now, and judges the answer (the "Send a test" button, and every post). */
  async send(rule: Pick<PostableRule, "channel" | "target" | "secret" | "failures">, alert: Alert): Promise<ChatPostVerdict> {
    const channel = rule.channel as AlertChannel;
    let verdict: ChatPostVerdict;
    if (channel === "email") {
      if (!this.options.mailer) verdict = { kind: "rejected", reason: "email alerts need SMTP_URL on the server" };
      else verdict = judgeEmailSend(await this.options.mailer.send({ to: rule.target, ...emailMessage(alert) }), rule.failures);
    } else {
      const request = alertRequest(channel, alert, { secret: rule.secret, messageId: `msg_${uuidv7()}`, nowSeconds: (this.options.now ?? Date.now)() / 1000 });
      const result = await this.options.deliveries.run({
        url: rule.target,
        method: "POST",
        headers: request.headers,
        body: request.body,
        timeoutMs: this.options.postTimeoutMs ?? 10_000,
        maxResponseBytes: 4096,
        allowPrivate: this.options.allowPrivate,
      });
      const retryAfter = result.headers?.find(([key]) => key.toLowerCase() === "retry-after")?.[1] ?? null;
      const answer = { status: result.status, body: result.body ? Buffer.from(result.body).toString("utf8") : "", retryAfter, error: result.error };
      verdict = judgeAlertPost(channel, answer, rule.failures);
    }
    this.options.metrics?.chatPost(verdict.kind);
    return verdict;
  }

  handler(): JobHandler {
    return {
      kind: ALERT_JOB,
      concurrency: 20,
      leaseMs: (this.options.postTimeoutMs ?? 10_000) * 3 + 5_000,
      maxAttempts: 10,
      run: (job) => this.serve(job.key),
    };
  }

  private async serve(ruleId: string): Promise<JobVerdict> {
    const rule = await postableAlertRule(this.options.db, ruleId);
    // Disabled, paused or deleted: what is due waits (or went with the rule); saving it enqueues this job again.
    if (!rule) return { kind: "done" };
    const pace = this.options.paceMs ?? 1_000;
    const due = await dueAlerts(this.options.db, rule.id, ALERTS_PER_POST);
    const more = due.length === ALERTS_PER_POST;
    const ids = due.map((row) => row.outboxId);
    const alerts = due.map((row) => alertOf(row, this.options.baseUrl)).filter((alert): alert is Alert => alert !== null);
    if (alerts.length === 0) {
      await finishAlertRule(this.options.db, rule.id, { kind: "done", outboxIds: ids, nextInMs: 0, lastError: null }, null);
      return more ? { kind: "later", inMs: 0 } : { kind: "done", rerunInMs: 0 };
    }
    const alert = alerts.length === 1 ? alerts[0]! : summaryAlert(alerts, `${this.options.baseUrl}/events`);
    const verdict = await this.send(rule, alert);
    const outcome = channelOutcome(verdict, ids, pace);
    await finishAlertRule(this.options.db, rule.id, outcome, resultOf(verdict));
    if (verdict.kind !== "posted") this.options.logger.warn("alert post failed", { rule: rule.id, channel: rule.channel, reason: verdict.reason });
    return channelJobVerdict(outcome, more, pace);
  }
}

/** The rule's last result, as the Settings page shows it. */
function resultOf(verdict: ChatPostVerdict): { ok: boolean; text: string } {
  if (verdict.kind === "posted") return { ok: true, text: "delivered" };
  return { ok: false, text: verdict.kind === "retry" ? `${verdict.reason} (will retry)` : verdict.reason };
}
