// Automatic retries of a failed forward: the policy an endpoint stores, its presets, and the
// delay before the next attempt. Pure and browser-safe (the dashboard shows the presets).

/** An endpoint's retry policy; null on the endpoint means one attempt and no retries. */
export interface RetryPolicy {
  /** Attempts in all, the first included (1 to MAX_RETRY_ATTEMPTS). */
  maxAttempts: number;
  /** Nominal wait after the first failed attempt; each later wait doubles, up to maxDelayMs. */
  initialDelayMs: number;
  maxDelayMs: number;
}

export const MAX_RETRY_ATTEMPTS = 20;
export const MIN_RETRY_DELAY_MS = 100;
/** The longest wait a policy may ask for between two attempts (one week). */
export const MAX_RETRY_DELAY_MS = 7 * 24 * 3_600_000;
/** Retry-After may ask for more than max_delay_ms, up to this (or max_delay_ms when larger). */
export const RETRY_AFTER_CAP_MS = 3_600_000;

export type RetryPresetId = "none" | "hour" | "day";

export interface RetryPreset {
  id: RetryPresetId;
  label: string;
  policy: RetryPolicy | null;
}

/*
 * The nominal waits add up to what the label says:
 * hour: 4 + 8 + 16 + 32 min = 60 min between 5 attempts;
 * day: 24 + 48 + 96 + 192 min, then 3 × 360 min (the cap) = 1,440 min between 8 attempts.
 */
export const RETRY_PRESETS: readonly RetryPreset[] = [
  { id: "none", label: "None (one attempt)", policy: null },
  { id: "hour", label: "5 attempts over about an hour", policy: { maxAttempts: 5, initialDelayMs: 4 * 60_000, maxDelayMs: 32 * 60_000 } },
  { id: "day", label: "8 attempts over a day", policy: { maxAttempts: 8, initialDelayMs: 24 * 60_000, maxDelayMs: 6 * 3_600_000 } },
];

/** The policy stored as three nullable columns (null when any is unset: one attempt, no retries). */
export function retryPolicyFromColumns(maxAttempts: number | null, initialDelayMs: number | null, maxDelayMs: number | null): RetryPolicy | null {
  if (maxAttempts === null || initialDelayMs === null || maxDelayMs === null) return null;
  return { maxAttempts, initialDelayMs, maxDelayMs };
}

export function retryPreset(id: RetryPresetId): RetryPolicy | null {
  return RETRY_PRESETS.find((preset) => preset.id === id)!.policy;
}

/** Why a policy cannot be stored, or null when it can. */
export function retryPolicyProblem(policy: RetryPolicy): string | null {
  const { maxAttempts, initialDelayMs, maxDelayMs } = policy;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1 || maxAttempts > MAX_RETRY_ATTEMPTS) return `max_attempts must be a whole number from 1 to ${MAX_RETRY_ATTEMPTS}`;
  if (!Number.isInteger(initialDelayMs) || initialDelayMs < MIN_RETRY_DELAY_MS) return `initial_delay_ms must be a whole number of at least ${MIN_RETRY_DELAY_MS}`;
  if (!Number.isInteger(maxDelayMs) || maxDelayMs < initialDelayMs || maxDelayMs > MAX_RETRY_DELAY_MS)
    return `max_delay_ms must be a whole number from initial_delay_ms to ${MAX_RETRY_DELAY_MS} (one week)`;
  return null;
}

/** The nominal wait after failed attempt `attempt` (1-based): initial × 2^(attempt-1), at most maxDelayMs. */
export function nominalRetryDelay(policy: RetryPolicy, attempt: number): number {
  return Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** Math.max(0, attempt - 1));
}

/**
 * A Retry-After header in milliseconds from `now`: delta-seconds or an HTTP date; null when
 * absent or unreadable. A date in the past means now (0).
 */
export function parseRetryAfter(value: string | null | undefined, now: number): number | null {
  if (!value) return null;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/[a-z]/i.test(text)) return null;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

export interface FailedAttempt {
  /** Which attempt this was (1 for the first). */
  attempt: number;
  responseStatus: number | null;
  retryAfter: string | null;
}

/**
 * How long to wait before the next attempt after a failed one, or null when it was the last
 * (no policy, or no attempts left). The wait is the nominal one with ±20 % jitter (so
 * events that failed together do not come back together), at most maxDelayMs; a 429 or
 * 503 with Retry-After waits what the destination asked, at most the larger of maxDelayMs
 * and an hour. `random` returns [0, 1) (Math.random; fixed in tests), `now` is epoch ms.
 */
export function retryDelay(policy: RetryPolicy | null, failed: FailedAttempt, random: () => number, now: number): number | null {
  if (!policy || failed.attempt >= policy.maxAttempts) return null;
  if (failed.responseStatus === 429 || failed.responseStatus === 503) {
    const asked = parseRetryAfter(failed.retryAfter, now);
    if (asked !== null) return Math.min(asked, Math.max(policy.maxDelayMs, RETRY_AFTER_CAP_MS));
  }
  const jittered = nominalRetryDelay(policy, failed.attempt) * (0.8 + 0.4 * random());
  return Math.round(Math.min(policy.maxDelayMs, jittered));
}
