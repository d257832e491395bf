import { createHash } from "node:crypto";
import {
  alertRequest,
  alertSendRefusalMessage,
  heldAlertMessage,
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
  DEFAULT_ALERT_SEND_LIMITS,
  type Alert,
  type AlertChannel,
  type AlertSendLimits,
  type AlertSendRefusal,
  type ChatMetrics,
  type ChatPostVerdict,
  type Logger,
} from "@rehook/core";
import { ALERT_JOB, dueAlerts, finishAlertRule, postableAlertRule, reserveAlertSend, type DueAlert, type JobHandler, type JobVerdict, type Pool, type PostableRule } from "@rehook/db";
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
  /** What one team may send: tests per rule and per team, email per team (unset: the defaults). */
  limits?: AlertSendLimits;
  /** The clock of the webhook channel's signature timestamps and of the send limits (tests; unset: Date.now). */
  now?: () => number;
}

/** A rule as "Send a test" sends through it. */
export type TestedRule = Pick<PostableRule, "id" | "teamId" | "channel" | "target" | "secret">;

/** Who asks for a test (the user counted against their hour; null: none) and when, by the caller's clock. */
export interface TestAsker {
  userId: string | null;
  nowMs: number;
}

/** A test the send limits refused: which limit, and what the button says. */
export interface TestRefusal {
  refusal: AlertSendRefusal;
  message: string;
}

/** How a test went: the channel's verdict, or the limit that kept it from being sent. */
export type TestOutcome = { sent: true; verdict: ChatPostVerdict } | ({ sent: false } & TestRefusal);

/**
 * The webhook-id of a post of these outbox rows. Standard Webhooks asks a resend to keep its
 * id, so receivers that deduplicate on it act once: derived from the rows, it is the same on
 * every attempt (a retry sends the same rows, see `retryThrough`), and another for other rows.
 */
export function alertMessageId(ruleId: string, outboxIds: readonly string[]): string {
  return `msg_${createHash("sha256").update(`${ruleId}:${outboxIds.join(",")}`).digest("base64url").slice(0, 32)}`;
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
      // Resumed before the post: nothing to say any more. The reason is the one that tripped it
      // (stored with the alert: the count the card and the audit log show), not a later one.
      if (!row.pausedReason) return null;
      return destinationPausedAlert({
        endpointName,
        destinationName: row.destinationName ?? "a destination",
        reason: typeof detail.reason === "string" ? detail.reason : row.pausedReason,
        at: row.at,
        url: endpointUrl,
      });
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

  private get limits(): AlertSendLimits {
    return this.options.limits ?? DEFAULT_ALERT_SEND_LIMITS;
  }

  private nowMs(): number {
    return (this.options.now ?? Date.now)();
  }

  /**
   * Counts a test of `subject` (a rule's id, or "notifications:<team id>" for the team's chat hook)
   * against the test limits (per subject, team and user) and, for email, the team's and the
   * server's hour; null when it may go. Anything sent by a "Send a test" button asks here first.
   */
  async reserveTest(test: { teamId: string; subject: string; email: boolean; tested: string }, asker: TestAsker): Promise<TestRefusal | null> {
    const reservation = { teamId: test.teamId, userId: asker.userId, subject: test.subject, test: true, email: test.email, nowMs: asker.nowMs };
    const refusal = await reserveAlertSend(this.options.db, reservation, this.limits);
    return refusal ? { refusal, message: alertSendRefusalMessage(refusal, this.limits, test.tested) } : null;
  }

  /**
   * "Send a test": counted against the limits (see reserveTest) before anything is sent, so a
   * refused or failed test counts too.
   */
  async sendTest(rule: TestedRule, alert: Alert, asker: TestAsker): Promise<TestOutcome> {
    const refused = await this.reserveTest({ teamId: rule.teamId, subject: rule.id, email: rule.channel === "email", tested: "rule" }, asker);
    if (refused) return { sent: false, ...refused };
    return { sent: true, verdict: await this.send({ ...rule, failures: 0 }, alert) };
  }

  /** Sends one alert to a rule's channel now, and judges the answer (every post, and a test once counted). */
  async send(rule: Pick<PostableRule, "channel" | "target" | "secret" | "failures">, alert: Alert, messageId = `msg_${uuidv7()}`): Promise<ChatPostVerdict> {
    const channel = rule.channel as AlertChannel;
    let verdict: ChatPostVerdict;
    if (channel === "email") {
      if (!this.options.mailer) verdict = { kind: "rejected", reason: "email alerts need SMTP_URL on the server" };
      else verdict = judgeEmailSend(await this.options.mailer.send({ to: rule.target, ...emailMessage(alert) }), rule.failures);
    } else {
      const request = alertRequest(channel, alert, { secret: rule.secret, messageId, nowSeconds: this.nowMs() / 1000 });
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
    // A retry sends the rows of the failed post again, no more (what came due meanwhile waits its turn).
    const due = await dueAlerts(this.options.db, rule.id, ALERTS_PER_POST, rule.retryThrough);
    const more = due.length === ALERTS_PER_POST || rule.retryThrough !== null;
    const ids = due.map((row) => row.outboxId);
    const alerts = due.map((row) => alertOf(row, this.options.baseUrl)).filter((alert): alert is Alert => alert !== null);
    if (alerts.length === 0) {
      await finishAlertRule(this.options.db, rule.id, { kind: "done", outboxIds: ids, nextInMs: 0, lastError: null }, null);
      return more ? { kind: "later", inMs: 0 } : { kind: "done", rerunInMs: 0 };
    }
    if (rule.channel === "email") {
      const refusal = await reserveAlertSend(
        this.options.db,
        { teamId: rule.teamId, userId: null, subject: rule.id, test: false, email: true, nowMs: this.nowMs() },
        this.limits,
      );
      if (refusal) {
        // Held, not failed: the rows stay (more fold into one summary) and go once the hour has room.
        const text = heldAlertMessage(refusal, this.limits);
        await finishAlertRule(this.options.db, rule.id, { kind: "retry", nextInMs: refusal.retryAfterMs, failures: rule.failures, lastError: text }, { ok: false, text }, rule.retryThrough);
        return { kind: "later", inMs: refusal.retryAfterMs };
      }
    }
    const alert = alerts.length === 1 ? alerts[0]! : summaryAlert(alerts, `${this.options.baseUrl}/events`);
    const verdict = await this.send(rule, alert, alertMessageId(rule.id, ids));
    const outcome = channelOutcome(verdict, ids, pace);
    await finishAlertRule(this.options.db, rule.id, outcome, resultOf(verdict), ids.at(-1) ?? null);
    if (verdict.kind !== "posted") this.options.logger.warn("alert post failed", { rule: rule.id, channel: rule.channel, reason: verdict.reason });
    return channelJobVerdict(outcome, more, pace);
  }
}

/** The rule's last result, as the Settings page shows it. */
function resultOf(verdict: ChatPostVerdict): { ok: boolean; text: string } {
  if (verdict.kind === "posted") return { ok: true, text: "delivered" };
  return { ok: false, text: verdict.kind === "retry" ? `${verdict.reason} (will retry)` : verdict.reason };
}
