import { forwardingPausedMessage, judgeChatPost, notificationMessage, summaryMessage, type ChatMessage, type ChatMetrics, type Logger } from "@rehook/core";
import { dueNotifications, finishChannel, postableChannel, type ChannelOutcome, type JobHandler, type JobVerdict, type NotificationChannel, type Pool } from "@rehook/db";
import { channelJobVerdict, channelOutcome } from "./channel-outcome.js";
import type { DeliveryPool } from "./pool.js";
import type { DeliveryResult } from "./types.js";

export interface NotifierOptions {
  db: Pool;
  deliveries: DeliveryPool;
  /** Links in messages point into the dashboard here. */
  baseUrl: string;
  allowPrivate: boolean;
  logger: Logger;
  /** At most one post per webhook URL per this interval; more due are folded into a summary. */
  paceMs?: number;
  postTimeoutMs?: number;
  /** Counts each notification post by how the provider's answer was judged. */
  metrics?: ChatMetrics;
}

/** Outbox rows read for one post (one message, or one summary of them). */
const ROWS_PER_POST = 1_000;

function header(result: DeliveryResult, name: string): string | null {
  return result.headers?.find(([key]) => key.toLowerCase() === name)?.[1] ?? null;
}

/**
 * Posts due chat notifications from the outbox, as the job runner's "notify" jobs: one job
 * per team (so one instance posts for a hook at a time), enqueued in the statement that
 * writes the outbox row. A hook is posted to at most once per `paceMs` (what came due
 * meanwhile is folded into one summary), through the delivery workers and the safe agent.
 * Outbox rows are deleted only once their post is answered, so a crash re-posts, never loses.
 */
export class Notifier {
  constructor(private readonly options: NotifierOptions) {}

  /** Posts one message to a hook now (the Settings "send test message" button). */
  async post(webhookUrl: string, message: ChatMessage): Promise<DeliveryResult> {
    return this.options.deliveries.run({
      url: webhookUrl,
      method: "POST",
      headers: [["Content-Type", "application/json"]],
      body: Buffer.from(JSON.stringify(message)),
      timeoutMs: this.options.postTimeoutMs ?? 10_000,
      maxResponseBytes: 4096,
      allowPrivate: this.options.allowPrivate,
    });
  }

  /** The job handler: the job's key is the team whose notifications are due. */
  handler(): JobHandler {
    return {
      kind: "notify",
      concurrency: 20,
      leaseMs: (this.options.postTimeoutMs ?? 10_000) * 2 + 5_000,
      // A failure here is the database's, not the provider's (those are judged below): retried with backoff for about half an hour.
      maxAttempts: 10,
      run: (job) => this.serve(job.key),
    };
  }

  private async serve(teamId: string): Promise<JobVerdict> {
    const channel = await postableChannel(this.options.db, teamId);
    // Off, paused or without a URL: the rows wait; saving the settings enqueues this job again.
    if (!channel) return { kind: "done" };
    const { outcome, more } = await this.deliver(channel);
    await finishChannel(this.options.db, channel.teamId, outcome);
    return channelJobVerdict(outcome, more, this.options.paceMs ?? 1_000);
  }

  /** One post of what is due; `more`: rows were left for a later post. */
  private async deliver(channel: NotificationChannel): Promise<{ outcome: ChannelOutcome; more: boolean }> {
    const pace = this.options.paceMs ?? 1_000;
    const all = await dueNotifications(this.options.db, channel.teamId, ROWS_PER_POST);
    const base = this.options.baseUrl;
    // A paused endpoint gets a message of its own, ahead of the event notifications (they follow at the next post).
    const pauses = all.filter((row) => row.found && row.paused);
    const due = pauses.length > 0 ? pauses : all.filter((row) => !row.paused);
    const more = due.length < all.length || all.length === ROWS_PER_POST;
    const ids = due.map((row) => row.outboxId);
    const events = due.filter((row) => row.found).map((row) => row.event);
    if (events.length === 0) return { outcome: { kind: "done", outboxIds: ids, nextInMs: 0, lastError: null }, more };
    const paused = pauses.map((row) => row.paused!);
    const message =
      paused.length > 0
        ? forwardingPausedMessage(paused, `${base}/endpoints/${paused[0]!.endpointId}`)
        : events.length === 1
          ? notificationMessage(events[0]!, `${base}/events/${events[0]!.id}`)
          : summaryMessage(events, `${base}/events`);
    const result = await this.post(channel.webhookUrl, message);
    const answer = { status: result.status, body: result.body ? Buffer.from(result.body).toString("utf8") : "", retryAfter: header(result, "retry-after"), error: result.error };
    const verdict = judgeChatPost(answer, channel.failures);
    this.options.metrics?.chatPost(verdict.kind);
    return { outcome: channelOutcome(verdict, ids, pace), more };
  }
}
