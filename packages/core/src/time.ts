/** ISO 8601 UTC with milliseconds, e.g. 2026-11-21T10:15:30.123Z. */
export function toIsoMillis(date: Date): string {
  return date.toISOString();
}
