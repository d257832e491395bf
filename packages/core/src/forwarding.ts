import { hasDotSegment } from "./sub-path.js";
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
 * Headers a proxy in front of Rehook (or the sender itself) wrote about the hop to Rehook:
 * the client address, host and scheme it claims. A destination that trusts them would
 * believe whatever the sender wrote, so they stay behind unless the endpoint opts in.
 */
function isProxyHeader(lowerName: string): boolean {
  return lowerName.startsWith("x-forwarded-") || lowerName === "forwarded" || lowerName === "x-real-ip";
}

export interface ForwardHeaderOptions {
  /** The endpoint's keep_proxy_headers: send X-Forwarded-*, Forwarded and X-Real-IP on. */
  keepProxyHeaders?: boolean;
}

/**
 * The captured headers to send on: original order, case and duplicates, minus the
 * hop-by-hop set, every header that Connection names, and (unless kept) the proxy headers.
 * Content-Encoding and the compressed body travel unchanged.
 */
export function forwardableHeaders(headers: HeaderList, options: ForwardHeaderOptions = {}): HeaderList {
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
    return !HOP_BY_HOP.has(lower) && !named.has(lower) && (options.keepProxyHeaders || !isProxyHeader(lower));
  });
}

export type ForwardTarget = { ok: true; url: string } | { ok: false; reason: string };

/**
 * Where a captured request goes: the destination URL with the captured sub-path appended
 * to its path and the captured query appended to its query.
 * https://api.example.com/hooks + /github/push?x=1 -> https://api.example.com/hooks/github/push?x=1
 * The result's path always lies under the destination's path: a sub-path with a dot segment
 * (stored before capture refused them) or one that would land elsewhere is refused instead.
 */
export function forwardTarget(destinationUrl: string, subPath: string, query: string): ForwardTarget {
  const url = new URL(destinationUrl);
  const basePath = url.pathname.replace(/\/+$/, "");
  const refused = (): ForwardTarget => ({
    ok: false,
    reason: `refused: the captured sub-path ${JSON.stringify(subPath.slice(0, 200))} could leave the destination's path ${basePath || "/"}`,
  });
  if (hasDotSegment(subPath)) return refused();
  if (subPath) url.pathname = basePath + subPath;
  if (query) url.search = url.search ? `${url.search}&${query}` : `?${query}`;
  const underBase = url.pathname === basePath || url.pathname.startsWith(`${basePath}/`);
  return underBase ? { ok: true, url: url.href } : refused();
}
