/**
 * Formatting helpers for the dashboard. Domain rules (statuses, relative times, JSON
 * tokens, shell quoting) come from @rehook/core/browser, the part of core without Node
 * modules; the rest is presentation.
 */
import { EVENT_STATUSES, relativeTime as relativeTimeAt, shellQuote, type EventStatus, type HealthState } from "@rehook/core/browser";

export { EVENT_STATUSES, jsonTokens, shellQuote, type EventStatus, type HealthState, type JsonToken, type JsonTokenKind } from "@rehook/core/browser";

/** Dates arrive as Date objects through tRPC (superjson) and as ISO strings through some loaders. */
export function toDate(value: Date | string | number): Date {
  return value instanceof Date ? value : new Date(value);
}

/** A short age for lists ("5m ago"); `now` in epoch ms so a ticking clock can re-render it. */
export function relativeTime(then: Date, now: number): string {
  return relativeTimeAt(then, new Date(now));
}

/** The exact time in UTC, identical on server and client (used for the first render). */
export function utcTime(date: Date): string {
  if (Number.isNaN(date.getTime())) return "unknown";
  return `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

let localFormat: Intl.DateTimeFormat | undefined;

/** The exact time in the viewer's locale and time zone, with the zone named. */
export function localTime(date: Date): string {
  if (Number.isNaN(date.getTime())) return "unknown";
  localFormat ??= new Intl.DateTimeFormat(undefined, {
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    timeZoneName: "short",
  });
  return localFormat.format(date);
}

/** "123 ms", or an em dash when there is no figure. */
export function formatLatency(ms: number | null | undefined): string {
  return ms === null || ms === undefined ? "—" : `${Math.round(ms)} ms`;
}

/**
 * A success rate (0..1) as a whole percentage, rounded down so that the figure never
 * contradicts the health state (89.6% is "Degraded" and shows 89%, not 90%).
 */
export function formatPercent(rate: number): string {
  if (rate >= 1) return "100%";
  return `${Math.floor(rate * 100)}%`;
}

/** A byte count for people: "512 B", "1.4 KB", "2.0 MB". */
export function formatBytes(size: number): string {
  if (size < 1024) return `${size} B`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KB`;
  return `${(size / (1024 * 1024)).toFixed(1)} MB`;
}

/** "1 event" / "3 events". */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${count.toLocaleString("en-US")} ${count === 1 ? one : many}`;
}

/** An endpoint's finished deliveries: "12 delivered · 1 failed". */
export function deliveryCounts(endpoint: { deliveredCount: number; failedCount: number }): string {
  return `${endpoint.deliveredCount.toLocaleString("en-US")} delivered · ${endpoint.failedCount.toLocaleString("en-US")} failed`;
}

/** The first-run command that sends a sample event to a capture URL. */
export function testEventCurl(webhookUrl: string): string {
  return `curl -X POST ${shellQuote(webhookUrl)} -H 'Content-Type: application/json' -d '{"type":"test.event","data":{"hello":"world"}}'`;
}

export function isEventStatus(value: unknown): value is EventStatus {
  return typeof value === "string" && (EVENT_STATUSES as readonly string[]).includes(value);
}

export const STATUS_LABELS: Record<EventStatus, string> = {
  captured: "Captured",
  pending: "Pending",
  delivered: "Delivered",
  failed: "Failed",
  duplicate: "Duplicate",
};

export const HEALTH_LABELS: Record<HealthState, string> = {
  healthy: "Healthy",
  degraded: "Degraded",
  unhealthy: "Unhealthy",
  capturing: "Capturing",
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: unknown): value is string {
  return typeof value === "string" && UUID.test(value);
}

/** How long an endpoint keeps its events: "Kept for 30 days", "Kept for ever". */
export function keptForText(days: number): string {
  return days === 0 ? "Kept for ever" : `Kept for ${plural(days, "day")}`;
}
