import type { IncomingMessage } from "node:http";
import { parseClientAddress } from "@rehook/core";

/**
 * The client's address. Without trusted proxies it is the socket's peer. Behind `hops` trusted
 * proxies it is the right-most address those proxies did not add: each proxy appends the
 * address that connected to it, so the left-most entries are whatever the client chose to
 * send and cannot be believed. The entry is reduced to the bare address (some load balancers
 * write "ip:port" or "[v6]:port"); one that is not an IP address gives null (unknown).
 */
export function clientIp(req: IncomingMessage, trustedProxyHops: number): string | null {
  const peer = req.socket.remoteAddress ?? null;
  if (trustedProxyHops <= 0) return parseClientAddress(peer);
  const header = req.headers["x-forwarded-for"];
  const forwarded = (Array.isArray(header) ? header.join(",") : (header ?? ""))
    .split(",")
    .map((entry) => entry.trim())
    .filter(Boolean);
  // [client-supplied…, added by proxy N, …, added by proxy 1] + the peer (proxy 1 itself).
  const chain = peer ? [...forwarded, peer] : forwarded;
  if (chain.length === 0) return null;
  return parseClientAddress(chain[Math.max(0, chain.length - 1 - trustedProxyHops)]);
}
