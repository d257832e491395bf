const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * A short age for lists: "just now", "12s ago", "5m ago", "3h ago", "2d ago", and from 30
 * days on the date (YYYY-MM-DD, UTC, so server and tests agree). Units are floored, so
 * "1m ago" covers 60–119 s. A time in the future (clock skew between hosts) is "just now".
 */
export function relativeTime(then: Date, now: Date): string {
  const age = now.getTime() - then.getTime();
  if (Number.isNaN(age)) return "unknown";
  if (age < 10 * SECOND) return "just now";
  if (age < MINUTE) return `${Math.floor(age / SECOND)}s ago`;
  if (age < HOUR) return `${Math.floor(age / MINUTE)}m ago`;
  if (age < DAY) return `${Math.floor(age / HOUR)}h ago`;
  if (age < 30 * DAY) return `${Math.floor(age / DAY)}d ago`;
  return then.toISOString().slice(0, 10);
}
