import { forwardingPausedMessage, judgeChatPost, notificationMessage, summaryMessage, type ChatMessage, type Logger } from "@rehook/core";
import { claimDueChannels, dueNotifications, finishChannel, type ChannelOutcome, type ClaimedChannel, type Pool } from "@rehook/db";
import type { DeliveryPool } from "./pool.js";
import type { DeliveryResult } from "./types.js";

export interface NotifierOptions {
  db: Pool;
  deliveries: DeliveryPool;
  /** Links in messages point into the dashboard here. */
  baseUrl: string;
  allowPrivate: boolean;
  logger: Logger;
  pollMs?: number;
  /** At most one post per webhook URL per this interval; more due are folded into a summary. */
  paceMs?: number;
  postTimeoutMs?: number;
}

function header(result: DeliveryResult, name: string): string | null {
  return result.headers?.find(([key]) => key.toLowerCase() === name)?.[1] ?? null;
}

/**
 * Posts due chat notifications from the outbox. Each user's hook is claimed with a lease
 * (one instance posts for it at a time), posted to at most once per `paceMs` (what came due
 * meanwhile is folded into one summary), through the delivery workers and the safe agent.
 * Outbox rows are deleted only once their post is answered, so a crash re-posts, never loses.
 */
export class Notifier {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private readonly leaseMs: number;

  constructor(private readonly options: NotifierOptions) {
    this.leaseMs = (options.postTimeoutMs ?? 10_000) * 2 + 5_000;
  }

  start(): void {
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

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

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick().finally(() => {
        this.running = undefined;
        this.schedule();
      });
    }, this.options.pollMs ?? 500);
  }

  private async tick(): Promise<void> {
    let channels: ClaimedChannel[];
    try {
      channels = await claimDueChannels(this.options.db, 20, this.leaseMs);
    } catch (error) {
      this.options.logger.warn("could not claim chat notifications", { error: String(error) });
      return;
    }
    await Promise.all(channels.map((channel) => this.serve(channel)));
  }

  private async serve(channel: ClaimedChannel): Promise<void> {
    try {
      await finishChannel(this.options.db, channel.userId, await this.deliver(channel));
    } catch (error) {
      // The lease expires and the notifications are tried again then.
      this.options.logger.warn("chat notification failed", { user: channel.userId, error: String(error) });
    }
  }

  private async deliver(channel: ClaimedChannel): Promise<ChannelOutcome> {
    const pace = this.options.paceMs ?? 1_000;
    const all = await dueNotifications(this.options.db, channel.userId, 1_000);
    const base = this.options.baseUrl;
    // A paused endpoint gets a message of its own, ahead of the event notifications (they follow at the next post).
    const pauses = all.filter((row) => row.found && row.paused);
    const due = pauses.length > 0 ? pauses : all.filter((row) => !row.paused);
    const ids = due.map((row) => row.outboxId);
    const events = due.filter((row) => row.found).map((row) => row.event);
    if (events.length === 0) return { kind: "done", outboxIds: ids, nextInMs: 0, lastError: null };
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
    switch (verdict.kind) {
      case "posted":
        return { kind: "done", outboxIds: ids, nextInMs: pace, lastError: null };
      case "retry":
        return { kind: "retry", nextInMs: verdict.afterMs, failures: verdict.failures, lastError: verdict.reason };
      case "give_up":
      case "rejected":
        return { kind: "done", outboxIds: ids, nextInMs: pace, lastError: verdict.reason };
      case "pause":
        return { kind: "pause", reason: verdict.reason, lastError: verdict.reason };
    }
  }
}
