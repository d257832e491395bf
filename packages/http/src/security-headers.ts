/** Local replays go to http://localhost on the port the user chose in the dashboard (3000 by default). */
const LOCAL_REPLAY_ORIGINS = "http://localhost:*";

/**
 * Headers on every dashboard answer (pages, /trpc, the replay and download routes): no MIME
 * sniffing, no framing (clickjacking), no referrer leaving the site, and nothing personal or
 * secret kept by a shared cache or the browser's back-forward cache.
 */
export const DASHBOARD_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "same-origin",
  "cache-control": "no-store",
};

/** /api/v1 answers carry data and, once, freshly made secrets: never cached, never sniffed. */
export const API_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "x-content-type-options": "nosniff",
  "cache-control": "no-store",
};

/**
 * The dashboard's Content-Security-Policy. Scripts only from us or inline with this response's
 * nonce (Remix inlines its hydration data); fetches to ourselves and to localhost on any port
 * (local replays: a developer's machine, reached from their browser); inline style attributes allowed (React
 * renders some), nothing framed, no plugins, no <base> hijack, forms post only to us.
 */
export function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}'`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src 'self' ${LOCAL_REPLAY_ORIGINS}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "object-src 'none'",
  ].join("; ");
}
