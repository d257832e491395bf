import { alertTime } from "./alerts/alert.js";
import type { NotificationTrigger } from "./chat-hooks.js";

/** What a notification says about one event. */
export interface NotifiedEvent {
  id: string;
  trigger: NotificationTrigger;
  source: string;
  eventType: string;
  endpointName: string;
  destinationUrl: string | null;
  latencyMs: number | null;
  responseStatus: number | null;
  error: string | null;
  /** When the event reached the status (ISO time). */
  at: Date;
}

/** A Slack-compatible incoming-webhook payload: Block Kit blocks and a plain fallback. */
export interface ChatMessage {
  text: string;
  blocks: Array<Record<string, unknown>>;
}

const TITLES: Record<NotificationTrigger, string> = {
  delivered: "Webhook Delivered",
  failed: "Webhook Failed",
  captured: "Webhook Captured",
};

const grouped = (n: number) => n.toLocaleString("en-US");

/** The error a forward gets when the destination does not answer in time (see delivery's send). */
export function timeoutError(timeoutMs: number): string {
  return `no complete answer within ${timeoutMs} ms`;
}

function timedOutAfter(error: string | null): number | undefined {
  const match = error ? /^no complete answer within (\d+) ms$/.exec(error) : null;
  return match ? Number(match[1]) : undefined;
}

/** The summary line of a message, as the spec words it. */
export function notificationSummary(event: NotifiedEvent): string {
  switch (event.trigger) {
    case "delivered":
      return `${event.eventType} was successfully forwarded in ${event.latencyMs ?? 0}ms`;
    case "captured":
      return `${event.eventType} was captured`;
    case "failed": {
      const timeout = timedOutAfter(event.error);
      if (timeout !== undefined) return `${event.eventType} failed to forward after the timeout of ${grouped(timeout)}ms`;
      if (event.responseStatus !== null) return `${event.eventType} failed to forward: destination answered ${event.responseStatus}`;
      return `${event.eventType} failed to forward: ${event.error ?? "unknown error"}`;
    }
  }
}

// Block Kit limits: 150 characters of header text, 2,000 per field.
const clip = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max - 1)}…`);
const field = (label: string, value: string) => ({ type: "mrkdwn", text: clip(`*${label}*\n${value}`, 2000) });
/** mrkdwn control characters in user-chosen text would format or inject links. */
const escape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

function footer(source: string, at: Date) {
  return { type: "context", elements: [{ type: "mrkdwn", text: escape(`Rehook · ${source} · ${alertTime(at)}`) }] };
}

/** The message for one event; `eventUrl` opens it in the dashboard. */
export function notificationMessage(event: NotifiedEvent, eventUrl: string): ChatMessage {
  const title = TITLES[event.trigger];
  const summary = notificationSummary(event);
  return {
    text: `${title}: ${summary} (${event.endpointName})`,
    blocks: [
      { type: "header", text: { type: "plain_text", text: clip(title, 150) } },
      { type: "section", text: { type: "mrkdwn", text: clip(escape(summary), 3000) } },
      {
        type: "section",
        fields: [
          field("Source", escape(event.source)),
          field("Status", event.trigger),
          field("Latency", event.latencyMs === null ? "—" : `${event.latencyMs}ms`),
          field("Endpoint", escape(event.endpointName)),
          field("Destination", event.destinationUrl ? escape(event.destinationUrl) : "none (capture only)"),
          field("Event ID", `<${eventUrl}|${event.id}>`),
        ],
      },
      footer(event.source, event.at),
    ],
  };
}

/**
 * One message for many events that came due together (the per-URL rate limit folds them):
 * counts per status and endpoint, e.g. "14 more failed events on stripe-prod in the last minute".
 */
export function summaryMessage(events: NotifiedEvent[], dashboardUrl: string, windowText = "in the last minute"): ChatMessage {
  const counts = new Map<string, { trigger: NotificationTrigger; endpoint: string; n: number }>();
  for (const event of events) {
    const key = `${event.trigger}\u0000${event.endpointName}`;
    const entry = counts.get(key) ?? { trigger: event.trigger, endpoint: event.endpointName, n: 0 };
    entry.n += 1;
    counts.set(key, entry);
  }
  const lines = [...counts.values()]
    .sort((a, b) => b.n - a.n)
    .map(({ trigger, endpoint, n }) => `${grouped(n)} more ${trigger} event${n === 1 ? "" : "s"} on ${endpoint} ${windowText}`);
  const latest = events.reduce((a, b) => (a.at >= b.at ? a : b));
  const title = `${grouped(events.length)} webhook notifications`;
  return {
    text: `${title}: ${lines.join("; ")}`,
    blocks: [
      { type: "header", text: { type: "plain_text", text: clip(title, 150) } },
      { type: "section", text: { type: "mrkdwn", text: clip(escape(lines.slice(0, 20).join("\n")), 3000) } },
      { type: "section", text: { type: "mrkdwn", text: `<${dashboardUrl}|Open the activity feed>` } },
      footer(latest.source, latest.at),
    ],
  };
}

/** What the provider's error strings mean, what to do, and whether posting must stop. */
export const CHAT_ERRORS: Record<string, { fatal: boolean; advice: string }> = {
  channel_not_found: { fatal: true, advice: "the channel no longer exists or the app cannot post there: recreate the hook and save the new URL" },
  channel_is_archived: { fatal: true, advice: "the channel is archived: unarchive it, or create a hook for another channel and save the new URL" },
  no_service: { fatal: true, advice: "the hook was revoked or rotated: save a new URL" },
  invalid_token: { fatal: true, advice: "the hook was revoked or rotated: save a new URL" },
  action_prohibited: { fatal: true, advice: "a workspace admin restricted posting to this channel: ask them, or use a hook for another channel" },
  invalid_payload: { fatal: false, advice: "the provider refused the message format (a Rehook bug: please report it)" },
};

/** The provider's error string from an answer body (Slack answers in plain text). */
export function chatErrorCode(body: string): string {
  return body.trim().split(/\s/)[0]!.slice(0, 100);
}

/** What to do after posting to a chat hook. */
export type ChatPostVerdict =
  | { kind: "posted" }
  /** Try again later: 429 (after Retry-After) or a transient failure (with backoff). */
  | { kind: "retry"; afterMs: number; failures: number; reason: string }
  /** Transient failures kept on: drop these notifications, keep posting later ones. */
  | { kind: "give_up"; reason: string }
  /** The hook is dead: stop until a new URL is saved. */
  | { kind: "pause"; reason: string }
  /** Refused for this message only (no retry). */
  | { kind: "rejected"; reason: string };

export interface ChatPostAnswer {
  status: number | null;
  body: string;
  retryAfter: string | null;
  /** Why no answer came (network error, timeout, blocked address). */
  error: string | null;
}

/**
 * Reads a chat provider's answer: 2xx posted; 429 waits for Retry-After; 5xx and network
 * errors retry with backoff (1, 2, 4, 8 s) up to `maxFailures`; other 4xx are not retried,
 * and the fatal error strings pause notifications with advice on the fix.
 */
export function judgeChatPost(answer: ChatPostAnswer, failures: number, maxFailures = 5): ChatPostVerdict {
  const { status } = answer;
  if (status !== null && status >= 200 && status < 300) return { kind: "posted" };
  if (status === 429) {
    const seconds = Number(answer.retryAfter);
    const afterMs = Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 3600) * 1000 : 30_000;
    return { kind: "retry", afterMs, failures, reason: `rate limited by the provider: waiting ${Math.round(afterMs / 1000)} s` };
  }
  if (status === null || status >= 500) {
    const reason = status === null ? `could not reach the provider: ${answer.error ?? "no answer"}` : `the provider answered ${status}`;
    if (failures + 1 >= maxFailures) return { kind: "give_up", reason: `${reason} (gave up after ${maxFailures} attempts)` };
    return { kind: "retry", afterMs: 1000 * 2 ** failures, failures: failures + 1, reason };
  }
  const code = chatErrorCode(answer.body) || `HTTP ${status}`;
  const known = CHAT_ERRORS[code];
  const reason = known ? `${code}: ${known.advice}` : `${code}: the provider refused the message (HTTP ${status})`;
  return known?.fatal ? { kind: "pause", reason } : { kind: "rejected", reason };
}
