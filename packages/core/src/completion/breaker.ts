// The circuit breaker of one destination, `pause_after_failures: N` (null: it never pauses).
// It counts failed attempts in a row (every request the destination failed, retries included;
// any delivered attempt sets it back to 0) and has three states:
//   closed    the count is 0 (or there is no breaker): sends go out side by side;
//   half-open the count is above 0: one send at a time (a probe) until one is delivered, so
//             that at most the sends already under way when a failure is stored follow it;
//   open      paused after the Nth failure in a row: nothing is sent until it is resumed.
// Resuming keeps the count: the breaker is half-open, the first send is a probe, and a failed
// probe (the count then reads N + 1) opens it again. While open the count stands still: the
// results of sends that were under way when it opened change nothing, so the card, the API,
// the alerts and the audit log all read the number that tripped it.
// The completion statement (packages/db deliveries.ts COMPLETE: attempted, tallies, judged)
// and the claim (CLAIM_DUE) mirror these rules; test/completion-rules.test.ts in packages/db
// runs both on the same cases.

export type BreakerPosition = "closed" | "half_open" | "open";

export interface BreakerState {
  /** pause_after_failures (null: never pauses). */
  pauseAfterFailures: number | null;
  /** consecutive_failures: failed attempts in a row. */
  consecutiveFailures: number;
  /** Paused now (forwarding_paused_at is set). */
  paused: boolean;
}

/** One stored attempt to the destination, as the breaker sees it. */
export interface BreakerAttempt {
  outcome: "delivered" | "failed";
  /** When it started (epoch ms): a batch's attempts are judged in this order, then by event id. */
  startedAt: number;
  eventId: string;
  /** How a failure reads ("destination answered 500"); null for a delivered attempt. */
  failure: string | null;
}

export interface BreakerJudgement {
  consecutiveFailures: number;
  /** This batch paused the destination. */
  trips: boolean;
  /** The failed attempt that tripped it (the Nth in a row), when it tripped. */
  trippedBy: BreakerAttempt | null;
  /** paused_reason when it tripped: the count and that attempt's failure. */
  reason: string | null;
}

export function breakerPosition(state: BreakerState): BreakerPosition {
  if (state.paused) return "open";
  return state.pauseAfterFailures !== null && state.consecutiveFailures > 0 ? "half_open" : "closed";
}

/** How a paused destination's reason reads (paused_reason; alerts and the card show it). */
export function breakerReason(consecutiveFailures: number, failure: string | null): string {
  return `${consecutiveFailures} consecutive failed attempts (last: ${failure ?? "unknown error"})`;
}

const byStart = (a: BreakerAttempt, b: BreakerAttempt) =>
  a.startedAt - b.startedAt || (a.eventId < b.eventId ? -1 : a.eventId > b.eventId ? 1 : 0);

/**
 * The breaker after a batch of stored attempts: each failure adds one, a delivery sets the
 * count to 0, and the Nth failure in a row trips it; what the batch holds after that arrived
 * while it was open and changes nothing. An open breaker changes nothing either.
 */
export function judgeBreaker(state: BreakerState, attempts: readonly BreakerAttempt[]): BreakerJudgement {
  let count = state.consecutiveFailures;
  if (state.paused) return { consecutiveFailures: count, trips: false, trippedBy: null, reason: null };
  for (const attempt of [...attempts].sort(byStart)) {
    count = attempt.outcome === "delivered" ? 0 : count + 1;
    if (attempt.outcome === "failed" && state.pauseAfterFailures !== null && count >= state.pauseAfterFailures) {
      return { consecutiveFailures: count, trips: true, trippedBy: attempt, reason: breakerReason(count, attempt.failure) };
    }
  }
  return { consecutiveFailures: count, trips: false, trippedBy: null, reason: null };
}

/** The destination card's line on its breaker (null when there is nothing to say). */
export function breakerSummary(state: BreakerState): string | null {
  const position = breakerPosition(state);
  if (state.consecutiveFailures === 0) return null;
  const count = `${state.consecutiveFailures} consecutive failed ${state.consecutiveFailures === 1 ? "attempt" : "attempts"}`;
  if (position === "open") return `Paused after ${count}.`;
  if (position === "half_open") return `${count}: sending one at a time until one is delivered.`;
  return `${count}.`;
}
