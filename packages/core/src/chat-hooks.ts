/** Where chat incoming-webhook URLs must point unless CHAT_HOOKS_BASE says otherwise. */
export const DEFAULT_CHAT_HOOKS_BASE = "https://hooks.slack.com";

/** The delivery outcomes a user can be notified about. */
export const NOTIFICATION_TRIGGERS = ["failed", "delivered", "captured"] as const;
export type NotificationTrigger = (typeof NOTIFICATION_TRIGGERS)[number];

export type ChatHookCheck = { ok: true; url: string } | { ok: false; reason: string };

// What a URL picks up when copied out of a chat message, Markdown or a word processor.
const OPENING_QUOTES = new Set(['"', "'", "`", "<", "\u201c", "\u2018"]);
const CLOSING_QUOTES = new Set(['"', "'", "`", ">", "\u201d", "\u2019"]);

/**
 * Checks a chat incoming-webhook URL against the configured base. Only the base's host
 * is trusted with notifications (which name endpoints and carry error text), so anything
 * else is refused, with a reason that says what to fix.
 */
export function checkChatHookUrl(raw: string, base: string): ChatHookCheck {
  if (raw.trim() === "") return { ok: false, reason: "the URL is empty" };
  if (raw !== raw.trim()) return { ok: false, reason: "remove the spaces around the URL" };
  if (OPENING_QUOTES.has(raw[0]!) || CLOSING_QUOTES.has(raw[raw.length - 1]!)) {
    return { ok: false, reason: "remove the quotes around the URL" };
  }
  const allowed = URL.canParse(base) ? new URL(base) : undefined;
  if (!allowed || (allowed.protocol !== "https:" && allowed.protocol !== "http:")) {
    return { ok: false, reason: `the configured CHAT_HOOKS_BASE (${base}) is not an http(s) URL` };
  }
  const shownBase = allowed.href.replace(/\/$/, "");
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { ok: false, reason: `not a valid URL: it should look like ${shownBase}/…` };
  }
  if (url.username || url.password) return { ok: false, reason: "remove the user:password@ part from the URL" };
  if (url.origin !== allowed.origin) {
    // Opaque URLs (mailto:, javascript:) have origin "null": show what was given instead.
    const got = url.origin === "null" ? url.href : url.origin;
    return { ok: false, reason: `the URL must start with ${shownBase} (got ${got})` };
  }
  // Whole path segments only: a base of /services must not admit /services-evil.
  const basePath = allowed.pathname.replace(/\/$/, "");
  if (basePath !== "" && url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`)) {
    return { ok: false, reason: `the URL must start with ${shownBase} (got ${url.origin}${url.pathname})` };
  }
  return { ok: true, url: url.href };
}
