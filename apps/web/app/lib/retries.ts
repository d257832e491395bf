/**
 * Automatic retries on the dashboard: which choice a stored policy is (a preset or custom),
 * delays in people's units, and the Retries form read back into an update.
 */

import { MAX_RETRY_ATTEMPTS, MAX_RETRY_DELAY_MS, MIN_RETRY_DELAY_MS, nominalRetryDelay, RETRY_PRESETS, type RetryPolicy, type RetryPreset } from "@rehook/core/browser";

export type { RetryPolicy };

/** The choices of the Retries form: core's presets, each with the waits it means. */
export const RETRY_CHOICES: ReadonlyArray<RetryPreset & { hint: string }> = RETRY_PRESETS.map((preset) => ({ ...preset, hint: describePolicy(preset.policy) }));

export const MAX_ATTEMPTS_LIMIT = MAX_RETRY_ATTEMPTS;
export const MIN_INITIAL_DELAY_MS = MIN_RETRY_DELAY_MS;

/** The preset a stored policy is, or "custom". */
export function policyChoice(policy: RetryPolicy | null | undefined): string {
  const found = RETRY_CHOICES.find((preset) =>
    preset.policy === null
      ? !policy
      : !!policy && preset.policy.maxAttempts === policy.maxAttempts && preset.policy.initialDelayMs === policy.initialDelayMs && preset.policy.maxDelayMs === policy.maxDelayMs,
  );
  return found ? found.id : "custom";
}

export const DELAY_UNITS = [
  { id: "ms", label: "ms", ms: 1 },
  { id: "s", label: "seconds", ms: 1000 },
  { id: "min", label: "minutes", ms: 60_000 },
  { id: "h", label: "hours", ms: 3_600_000 },
] as const;

export type DelayUnit = (typeof DELAY_UNITS)[number]["id"];

/** A delay in the largest unit that shows it whole: 90000 → 90 seconds, 3600000 → 1 hour. */
export function splitDelay(ms: number): { value: number; unit: DelayUnit } {
  for (const unit of [...DELAY_UNITS].reverse()) if (ms >= unit.ms && ms % unit.ms === 0) return { value: ms / unit.ms, unit: unit.id };
  return { value: ms, unit: "ms" };
}

/** A short duration for people: "250 ms", "30s", "5m", "1h 30m", "2d". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = Math.round(ms / 1000);
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 24) return minutes % 60 ? `${hours}h ${minutes % 60}m` : `${hours}h`;
  const days = Math.floor(hours / 24);
  return hours % 24 ? `${days}d ${hours % 24}h` : `${days}d`;
}

/** "in 28s", "in 4m", "in 2h": a time ahead; "now" once it has come (the attempt is due). */
export function timeUntil(then: Date, now: number): string {
  const ahead = then.getTime() - now;
  if (Number.isNaN(ahead)) return "unknown";
  if (ahead < 1000) return "now";
  if (ahead < 60_000) return `in ${Math.ceil(ahead / 1000)}s`;
  if (ahead < 3_600_000) return `in ${Math.ceil(ahead / 60_000)}m`;
  if (ahead < 86_400_000) return `in ${Math.floor(ahead / 3_600_000)}h ${Math.ceil((ahead % 3_600_000) / 60_000)}m`.replace(/ 0m$/, "");
  return `in ${Math.round(ahead / 86_400_000)}d`;
}

/** The nominal waits between a policy's attempts: "4m, 8m, 16m, 32m" (a long list is cut). */
export function retrySchedule(policy: RetryPolicy): string {
  const waits = Array.from({ length: Math.max(0, policy.maxAttempts - 1) }, (_, index) => formatDuration(nominalRetryDelay(policy, index + 1)));
  return waits.length > 8 ? `${waits.slice(0, 7).join(", ")}, … (${waits.length} waits)` : waits.join(", ");
}

/** One line for a policy: "Retries after 4m, 8m, 16m, 32m." */
export function describePolicy(policy: RetryPolicy | null | undefined): string {
  if (!policy || policy.maxAttempts <= 1) return "One attempt: a failed delivery stays failed.";
  return `Retries after about ${retrySchedule(policy)}.`;
}

export type RetryFormResult = { ok: true; retryPolicy: RetryPolicy | null; pauseAfterFailures: number | null } | { ok: false; error: string };

function wholeNumber(value: FormDataEntryValue | null): number | null {
  const text = String(value ?? "").trim();
  if (!/^\d+$/.test(text)) return null;
  return Number(text);
}

function delay(form: FormData, name: string): number | null {
  const text = String(form.get(name) ?? "").trim();
  if (!/^\d+(\.\d+)?$/.test(text)) return null;
  const unit = DELAY_UNITS.find((candidate) => candidate.id === form.get(`${name}Unit`)) ?? DELAY_UNITS[0];
  return Math.round(Number(text) * unit.ms);
}

/** The Retries form as an endpoints.update change, or the first thing wrong with it. */
export function readRetryForm(form: FormData): RetryFormResult {
  const choice = String(form.get("retryChoice") ?? "none");
  let retryPolicy: RetryPolicy | null;
  if (choice === "custom") {
    const maxAttempts = wholeNumber(form.get("maxAttempts"));
    if (maxAttempts === null || maxAttempts < 1 || maxAttempts > MAX_ATTEMPTS_LIMIT) return { ok: false, error: `Max attempts must be a whole number from 1 to ${MAX_ATTEMPTS_LIMIT}.` };
    const initialDelayMs = delay(form, "initialDelay");
    if (initialDelayMs === null || initialDelayMs < MIN_INITIAL_DELAY_MS) return { ok: false, error: `The first delay must be at least ${MIN_INITIAL_DELAY_MS} ms.` };
    const maxDelayMs = delay(form, "maxDelay");
    if (maxDelayMs === null || maxDelayMs < initialDelayMs) return { ok: false, error: "The longest delay must be at least the first delay." };
    if (maxDelayMs > MAX_RETRY_DELAY_MS) return { ok: false, error: "The longest delay can be at most a week." };
    retryPolicy = { maxAttempts, initialDelayMs, maxDelayMs };
  } else {
    const preset = RETRY_PRESETS.find((candidate) => candidate.id === choice);
    if (!preset) return { ok: false, error: "Choose a retry policy." };
    retryPolicy = preset.policy;
  }
  let pauseAfterFailures: number | null = null;
  if (form.get("pauseEnabled") !== null) {
    pauseAfterFailures = wholeNumber(form.get("pauseAfterFailures"));
    if (pauseAfterFailures === null || pauseAfterFailures < 1) return { ok: false, error: "Pause after must be a whole number of failed attempts, 1 or more." };
  }
  return { ok: true, retryPolicy, pauseAfterFailures };
}
