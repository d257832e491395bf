/**
 * Browser-safe formatting helpers for the dashboard. Small reimplementations of the
 * @rehook/core helpers (that package uses Node modules and must stay out of the bundle).
 */

/** Dates arrive as Date objects through tRPC (superjson) and as ISO strings through some loaders. */
export function toDate(value: Date | string | number): Date {
  return value instanceof Date ? value : new Date(value);
}

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * A short age for lists: "just now", "12s ago", "5m ago", "3h ago", "2d ago", and from 30
 * days on the date (YYYY-MM-DD). A time in the future (clock skew) is "just now".
 */
export function relativeTime(then: Date, now: number): string {
  const age = now - then.getTime();
  if (Number.isNaN(age)) return "unknown";
  if (age < 10 * SECOND) return "just now";
  if (age < MINUTE) return `${Math.floor(age / SECOND)}s ago`;
  if (age < HOUR) return `${Math.floor(age / MINUTE)}m ago`;
  if (age < DAY) return `${Math.floor(age / HOUR)}h ago`;
  if (age < 30 * DAY) return `${Math.floor(age / DAY)}d ago`;
  return then.toISOString().slice(0, 10);
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

/** POSIX single quoting: nothing is special inside '...', and a ' is written as '\''. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The first-run command that sends a sample event to a capture URL. */
export function testEventCurl(webhookUrl: string): string {
  return `curl -X POST ${shellQuote(webhookUrl)} -H 'Content-Type: application/json' -d '{"type":"test.event","data":{"hello":"world"}}'`;
}

export const EVENT_STATUSES = ["captured", "pending", "delivered", "failed"] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];

export function isEventStatus(value: unknown): value is EventStatus {
  return typeof value === "string" && (EVENT_STATUSES as readonly string[]).includes(value);
}

export const STATUS_LABELS: Record<EventStatus, string> = {
  captured: "Captured",
  pending: "Pending",
  delivered: "Delivered",
  failed: "Failed",
};

export type HealthState = "healthy" | "degraded" | "unhealthy" | "capturing";

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

export type JsonTokenKind = "key" | "string" | "number" | "boolean" | "null" | "punctuation" | "whitespace";
export type JsonToken = { kind: JsonTokenKind; text: string };

// Sticky patterns, tried at the current position. The string pattern also accepts an
// unterminated string so that any input, not only valid JSON, round-trips.
const WHITESPACE = /[ \t\r\n]+/y;
const STRING = /"(?:[^"\\]|\\[\s\S])*(?:"|\\?$)/y;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const WORD = /true|false|null/y;
const NEXT_NON_WHITESPACE = /[ \t\r\n]*/y;

function matchAt(pattern: RegExp, input: string, at: number): string | undefined {
  pattern.lastIndex = at;
  return pattern.exec(input)?.[0];
}

/**
 * Splits pretty-printed JSON into tokens for syntax highlighting. A string followed by ":"
 * is a key. Never fails: joining the token texts always gives back the input.
 */
export function jsonTokens(pretty: string): JsonToken[] {
  const tokens: JsonToken[] = [];
  let at = 0;
  while (at < pretty.length) {
    const ch = pretty[at]!;
    let token: JsonToken;
    const space = matchAt(WHITESPACE, pretty, at);
    if (space) {
      token = { kind: "whitespace", text: space };
    } else if (ch === '"') {
      const text = matchAt(STRING, pretty, at) ?? pretty.slice(at);
      const after = at + text.length + (matchAt(NEXT_NON_WHITESPACE, pretty, at + text.length)?.length ?? 0);
      token = { kind: pretty[after] === ":" ? "key" : "string", text };
    } else {
      const number = matchAt(NUMBER, pretty, at);
      const word = number ? undefined : matchAt(WORD, pretty, at);
      if (number) token = { kind: "number", text: number };
      else if (word) token = { kind: word === "null" ? "null" : "boolean", text: word };
      else token = { kind: "punctuation", text: ch };
    }
    tokens.push(token);
    at += token.text.length;
  }
  return tokens;
}
