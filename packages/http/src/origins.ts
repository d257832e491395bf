import type { IncomingMessage } from "node:http";

/** The origins a same-site request can come from: BASE_URL's and the one the browser used. */
export function ownOrigins(req: IncomingMessage, baseUrl: string, trustProxy: boolean): string[] {
  const origins = [new URL(baseUrl).origin];
  const forwardedProto = trustProxy ? String(req.headers["x-forwarded-proto"] ?? "").split(",")[0]?.trim() : "";
  const scheme = forwardedProto || ("encrypted" in req.socket && req.socket.encrypted ? "https" : "http");
  if (req.headers.host) origins.push(`${scheme}://${req.headers.host}`);
  return origins;
}

/**
 * Whether a state-changing request authenticated by a cookie comes from our own pages:
 * a same-origin Origin header, or (browsers that omit it) Sec-Fetch-Site: same-origin.
 */
export function isSameOriginRequest(req: IncomingMessage, baseUrl: string, trustProxy: boolean): boolean {
  const origin = req.headers.origin;
  if (origin) return ownOrigins(req, baseUrl, trustProxy).includes(origin);
  return req.headers["sec-fetch-site"] === "same-origin";
}
