import type { ChatPostVerdict } from "@rehook/core";
import type { ChannelOutcome, JobVerdict } from "@rehook/db";

/**
 * What a channel's verdict means for the outbox rows of one post (chat notifications and alert
 * rules alike): posted, given up on or refused, they are done and the next post waits `paceMs`;
 * retried, they stay; a dead channel pauses.
 */
export function channelOutcome(verdict: ChatPostVerdict, outboxIds: string[], paceMs: number): ChannelOutcome {
  switch (verdict.kind) {
    case "posted":
      return { kind: "done", outboxIds, nextInMs: paceMs, lastError: null };
    case "retry":
      return { kind: "retry", nextInMs: verdict.afterMs, failures: verdict.failures, lastError: verdict.reason };
    case "give_up":
    case "rejected":
      return { kind: "done", outboxIds, nextInMs: paceMs, lastError: verdict.reason };
    case "pause":
      return { kind: "pause", reason: verdict.reason, lastError: verdict.reason };
  }
}

/** When the channel's job runs next: at once for rows left over (after the pace), later for a retry, never once paused. */
export function channelJobVerdict(outcome: ChannelOutcome, more: boolean, paceMs: number): JobVerdict {
  switch (outcome.kind) {
    case "done":
      return more ? { kind: "later", inMs: outcome.nextInMs } : { kind: "done", rerunInMs: paceMs };
    case "retry":
      return { kind: "later", inMs: outcome.nextInMs };
    case "pause":
      return { kind: "done" };
  }
}
