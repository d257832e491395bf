/**
 * Masks secrets in log records: by field name (whatever the value) and by value shape (wherever
 * it appears: a message, an error text, an unexpected field). One place, used by every log format.
 */

export const REDACTED = "[redacted]";

// Field names whose values are secret whatever they hold (compared lower-case, "-" read as "_").
const SECRET_KEY = /(^|_)(authorization|cookie|set_cookie|api_key|apikey|secret|password|token|session|session_id|signature|webhook_url|hook_url|chat_url)($|_)/;

// Value shapes that are secrets on their own. Each match is replaced whole.
const SECRET_VALUES: readonly RegExp[] = [
  /pk_live_[0-9A-Za-z]{16,}/g, // API keys (not the short display prefix "pk_live_AbCd" lists show)
  /whsec_[0-9A-Za-z+/=]+/g, // signing secrets
  /https?:\/\/hooks\.slack\.com\/[^\s"'<>]*/g, // Slack incoming-webhook URLs (the path is the credential)
  /https?:\/\/[^\s"'<>/]*discord(?:app)?\.com\/api\/webhooks\/[^\s"'<>]*/g, // Discord webhook URLs
  /\b(?:__Host-)?rehook_session=[^;\s"']*/g, // session cookies in header text
  /\b(Bearer|Basic)\s+[^\s"',;]+/gi, // credentials from Authorization headers
  /\b[a-z2-7]{40}\b/g, // lucia session ids: 40 characters of lower-case base32
];

// Whether a text may hold any of SECRET_VALUES: one scan, so that the usual log value (a
// method, a path, an id) is not scanned once per pattern. Every pattern's start is here.
const MAY_HOLD_SECRET = /pk_live_|whsec_|hooks\.slack\.com|discord|rehook_session=|bearer|basic|[a-z2-7]{40}/i;

// Field names repeat from record to record (method, path, status...): each is judged once.
const secretKeyVerdicts = new Map<string, boolean>();
const MAX_REMEMBERED_KEYS = 1_000;

export function isSecretKey(key: string): boolean {
  let verdict = secretKeyVerdicts.get(key);
  if (verdict === undefined) {
    verdict = SECRET_KEY.test(key.toLowerCase().replace(/-/g, "_"));
    if (secretKeyVerdicts.size < MAX_REMEMBERED_KEYS) secretKeyVerdicts.set(key, verdict);
  }
  return verdict;
}

export function redactText(text: string): string {
  if (!MAY_HOLD_SECRET.test(text)) return text;
  let out = text;
  for (const pattern of SECRET_VALUES) out = out.replace(pattern, (match, scheme?: string) => (typeof scheme === "string" && /^(bearer|basic)$/i.test(scheme) ? `${scheme} ${REDACTED}` : REDACTED));
  return out;
}

/** A copy of value with secret fields and secret-shaped strings masked (depth-limited: logs are flat). */
export function redactValue(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return redactText(value);
  if (value instanceof Error) return redactText(value.stack ?? value.message);
  if (value === null || typeof value !== "object") return value;
  if (depth >= 4) return "[nested]";
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = isSecretKey(key) ? REDACTED : redactValue(item, depth + 1);
  return out;
}

export function redactFields(fields: Record<string, unknown> | undefined): Record<string, unknown> {
  return fields ? (redactValue(fields) as Record<string, unknown>) : {};
}
