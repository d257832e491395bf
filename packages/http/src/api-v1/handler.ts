import type { IncomingMessage, ServerResponse } from "node:http";
import { isUserError, retryAfterSecondsOf, type Logger } from "@rehook/core";
import { authenticateApiKey, type Services } from "@rehook/services";
import { annotateAccess } from "../access-fields.js";
import { requestOrigin } from "../request-origin.js";
import { readBodyOrRefuse } from "../body.js";
import type { RequestBodies } from "../request-bodies.js";
import { STATUS_FOR_CODE } from "../error-status.js";
import { sendError, sendJson } from "../respond.js";
import type { StreamBounds } from "../stream-backpressure.js";
import { decodePathSegment, MALFORMED_PATH_MESSAGE } from "../path-segment.js";
import { OpenStreams } from "../open-streams.js";
import { API_VERSION, openApiDocument } from "./openapi.js";
import { PerKeyRateLimit } from "./rate-limit.js";
import { ROUTES, type Route } from "./routes.js";

export interface PublicApiOptions {
  services: Services;
  baseUrl: string;
  logger: Logger;
  /** PUBLIC_API_ENABLED=false turns every /api/v1 route into 404. */
  enabled: boolean;
  requestsPerMinute: number;
  maxBodyBytes?: number;
  /** The server's request bodies: API bodies draw on the dashboard's slice, counted per team (the key's). */
  bodies: RequestBodies;
  /** X-Forwarded-For hops to believe for the client's address in the audit log (0 or unset: the socket's). */
  trustedProxyHops?: number;
  /** When a client of a streaming route (event stream, body download) that does not read is dropped; the defaults otherwise. */
  streamBounds?: Partial<StreamBounds>;
}

const PREFIX = `/api/${API_VERSION}`;
const VERSION_HEADER = { "rehook-api-version": API_VERSION };
const UNAUTHORIZED = "a valid API key is required: send Authorization: Bearer pk_live_…";

const compiled = ROUTES.map((route) => ({
  route,
  pattern: new RegExp(`^${route.path.replace(/\{(\w+)\}/g, "(?<$1>[^/]+)")}$`),
}));

function match(path: string): { allowed: Route[]; params: Record<string, string | undefined> } {
  const allowed: Route[] = [];
  let params: Record<string, string | undefined> = {};
  for (const { route, pattern } of compiled) {
    const found = pattern.exec(path);
    if (!found) continue;
    allowed.push(route);
    params = Object.fromEntries(Object.entries(found.groups ?? {}).map(([key, value]) => [key, decodePathSegment(value)]));
  }
  return { allowed, params };
}

/**
 * The public REST API under /api/v1 (preview): bearer API keys, JSON in and out, one error
 * shape, a per-key rate limit, the version in a header, and a request log without the key.
 */
export function createPublicApi(options: PublicApiOptions) {
  const limiter = new PerKeyRateLimit(options.requestsPerMinute);
  // Open event streams never end by themselves: shutdown ends them, and refuses new ones.
  const streams = new OpenStreams();
  const document = JSON.stringify(openApiDocument(options.baseUrl));
  const maxBody = options.maxBodyBytes ?? 1024 * 1024;

  async function answer(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void> {
    if (path === "/openapi.json" && (req.method === "GET" || req.method === "HEAD")) {
      res.writeHead(200, { "content-type": "application/json; charset=utf-8", ...VERSION_HEADER });
      res.end(req.method === "HEAD" ? undefined : document);
      return;
    }
    const { allowed, params } = match(path);
    if (allowed.length === 0) return sendError(res, 404, "not_found", `There is nothing at ${req.method} ${PREFIX}${path}. See ${PREFIX}/openapi.json for the routes.`, VERSION_HEADER);
    const route = allowed.find((candidate) => candidate.method === req.method);
    if (!route) {
      return sendError(res, 405, "method_not_allowed", `${req.method} is not allowed here`, { ...VERSION_HEADER, allow: allowed.map((r) => r.method).join(", ") });
    }
    if (Object.values(params).includes(undefined)) return sendError(res, 400, "bad_request", MALFORMED_PATH_MESSAGE, VERSION_HEADER);
    const key = await authenticateApiKey(options.services, req.headers.authorization);
    if (!key) return sendError(res, 401, "unauthorized", UNAUTHORIZED, { ...VERSION_HEADER, "www-authenticate": "Bearer" });
    // The key itself is never logged: its display prefix identifies it on the access line.
    annotateAccess(res, { key: key.prefix });
    const wait = limiter.take(key.keyId);
    if (wait !== null) {
      return sendError(res, 429, "rate_limited", `Too many requests were made with this API key. Try again in ${wait} s (see Retry-After).`, { ...VERSION_HEADER, "retry-after": String(wait) });
    }
    let body: unknown;
    // The key is checked before the body is read: its bodies count per team, not per address,
    // and may use the part of the dashboard's slice kept from anonymous requests.
    if (route.body) {
      if (!String(req.headers["content-type"] ?? "").toLowerCase().startsWith("application/json")) {
        return sendError(res, 415, "unsupported_media_type", "The body must be JSON. Send it with Content-Type: application/json.", VERSION_HEADER);
      }
      const read = await readBodyOrRefuse(req, res, maxBody, { headers: VERSION_HEADER, intake: { bodies: options.bodies, slice: "dashboard", principal: `team:${key.teamId}` } });
      if (!read) return;
      try {
        body = JSON.parse(read.toString("utf8"));
      } catch {
        return sendError(res, 400, "bad_request", "The body is not valid JSON. Check its syntax and send it again.", VERSION_HEADER);
      }
    }
    if (route.streams && !streams.admit(res, VERSION_HEADER)) return;
    try {
      const raw = {
        req,
        res,
        streamBounds: options.streamBounds ?? {},
        onStreamDrop: (reason: string) => options.logger.info("stream client dropped", { path: req.url ?? "", key: key.prefix, reason }),
      };
      const actor = { ...key, origin: requestOrigin(req, res, options.trustedProxyHops) };
      const result = await route.handle({ services: options.services, actor, params: params as Record<string, string>, query, body }, raw);
      if (!result) return; // streamed
      if (result.body === undefined) {
        res.writeHead(result.status, VERSION_HEADER);
        res.end();
      } else sendJson(res, result.status, result.body, VERSION_HEADER);
    } catch (error) {
      if (!isUserError(error)) throw error;
      if (res.headersSent) return void res.end();
      const status = STATUS_FOR_CODE[error.code];
      // A refusal that knows how long to wait (a paced alert test) says so as HTTP does.
      const retryAfter = retryAfterSecondsOf(error);
      res.writeHead(status, { "content-type": "application/json; charset=utf-8", ...VERSION_HEADER, ...(retryAfter === null ? {} : { "retry-after": String(retryAfter) }) });
      res.end(JSON.stringify({ error: { code: error.code, message: error.message, ...(status === 400 && error.details !== undefined ? { details: error.details } : {}) } }));
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!options.enabled) return sendError(res, 404, "not_found", "The public API is turned off on this server. Its operator can turn it on with PUBLIC_API_ENABLED=true.");
    const url = new URL(req.url ?? "/", "http://localhost");
    await answer(req, res, url.pathname.slice(PREFIX.length) || "/", url.searchParams);
  }

  return {
    handle,
    /** Shutdown has begun: ends the open event streams (clients to reconnect after `reconnectAfterMs`), and answers new ones 503 from now on. */
    closeStreams(reconnectAfterMs?: number): void {
      streams.endAll(reconnectAfterMs);
    },
  };
}
