import type { IncomingMessage } from "node:http";

/**
 * Which origins the dashboard answers at. They come from configuration only (BASE_URL, then
 * ALLOWED_ORIGINS), never from the request: a Host header or an absolute-form target is the
 * client's word, and trusting it lets a DNS-rebinding page or a spoofed Host pass as us.
 */
export interface OriginPolicy {
  /** Every origin that counts as ours, BASE_URL's first. */
  origins(): readonly string[];
  /** Whether a Host header names one of our origins' hosts. */
  isOwnHost(host: string | undefined): boolean;
  /** The origin to address a request to: the one whose host the request named, else BASE_URL's. */
  originFor(host: string | undefined): string;
  /** A cookie-authenticated state change from our own pages: same-origin Origin, or Sec-Fetch-Site when Origin is absent. */
  isSameOrigin(req: IncomingMessage): boolean;
}

export interface OriginPolicyOptions {
  /** BASE_URL's origin and ALLOWED_ORIGINS. */
  origins: readonly string[];
  /**
   * BASE_URL was not configured: the loopback origins on the port the server listens on are
   * ours as well, so `pnpm start` works at http://127.0.0.1:PORT. Asked lazily (PORT=0 picks the port at listen).
   */
  loopbackPort?: () => number | undefined;
}

const LOOPBACK_HOSTS = ["localhost", "127.0.0.1", "[::1]"];

export function createOriginPolicy(options: OriginPolicyOptions): OriginPolicy {
  let cached: { port: number | undefined; origins: string[]; hosts: Map<string, string> } | undefined;
  const current = () => {
    const port = options.loopbackPort?.();
    if (cached && cached.port === port) return cached;
    const origins = [...options.origins];
    if (port) for (const host of LOOPBACK_HOSTS) origins.push(`http://${host}:${port}`);
    const unique = [...new Set(origins)];
    // Host header value (lower case, default port omitted as browsers send it) -> origin.
    const hosts = new Map(unique.map((origin) => [new URL(origin).host, origin] as const));
    cached = { port, origins: unique, hosts };
    return cached;
  };
  const originOfHost = (host: string | undefined) => (host ? current().hosts.get(host.toLowerCase()) : undefined);
  return {
    origins: () => current().origins,
    isOwnHost: (host) => originOfHost(host) !== undefined,
    originFor: (host) => originOfHost(host) ?? current().origins[0]!,
    isSameOrigin(req) {
      const origin = req.headers.origin;
      if (origin) return current().origins.includes(origin);
      return req.headers["sec-fetch-site"] === "same-origin";
    },
  };
}
