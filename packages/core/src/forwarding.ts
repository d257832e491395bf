import type { HeaderList } from "./headers.js";

/** Headers that describe one connection, not the message: never forwarded (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authorization",
  "proxy-authenticate",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "expect",
  // Set anew for the destination: the host we connect to, the length of what we send.
  "host",
  "content-length",
]);

/**
 * The captured headers to send on: original order, case and duplicates, minus the
 * hop-by-hop set and every header that Connection names. Content-Encoding and the
 * compressed body travel unchanged.
 */
export function forwardableHeaders(headers: HeaderList): HeaderList {
  const named = new Set<string>();
  for (const [name, value] of headers) {
    if (name.toLowerCase() !== "connection") continue;
    for (const token of value.split(",")) {
      const trimmed = token.trim().toLowerCase();
      if (trimmed) named.add(trimmed);
    }
  }
  return headers.filter(([name]) => {
    const lower = name.toLowerCase();
    return !HOP_BY_HOP.has(lower) && !named.has(lower);
  });
}

/**
 * Where a captured request goes: the destination URL with the captured sub-path appended
 * to its path and the captured query appended to its query.
 * https://api.example.com/hooks + /github/push?x=1 -> https://api.example.com/hooks/github/push?x=1
 */
export function forwardTarget(destinationUrl: string, subPath: string, query: string): string {
  const url = new URL(destinationUrl);
  if (subPath) url.pathname = url.pathname.replace(/\/+$/, "") + subPath;
  if (query) url.search = url.search ? `${url.search}&${query}` : `?${query}`;
  return url.href;
}
