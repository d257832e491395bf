import type { IncomingMessage, ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import { parseCapturePath, type Logger } from "@rehook/core";
import {
  accessAnnotations,
  API_SECURITY_HEADERS,
  DASHBOARD_SECURITY_HEADERS,
  decodePathSegment,
  EVENT_EXPORT_PATH,
  MALFORMED_PATH_MESSAGE,
  matchEventBodyRoute,
  matchReplayRoute,
  sendError,
  type OriginPolicy,
} from "@rehook/http";
import { requestIdFor, withRequestId } from "./request-context.js";

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export interface Routes {
  capture: Handler;
  /** GET /healthz: the process is alive. */
  health: Handler;
  /** GET /readyz: the database answers, migrations are applied, and the server is not draining. */
  readiness: Handler;
  /** tRPC at /trpc/*. */
  trpc?: Handler;
  /** Built client files; false when there is no such file. */
  staticFiles?: (req: IncomingMessage, res: ServerResponse) => Promise<boolean>;
  /** The Remix dashboard: every other path outside /api/. */
  pages?: Handler;
  /** The public REST API under /api/v1/. */
  publicApi?: Handler;
  /** POST /api/events/{eventId}/replay (session-authenticated). */
  replay?: (req: IncomingMessage, res: ServerResponse, eventId: string) => Promise<void>;
  /** GET /api/events/{eventId}/body (session-authenticated): an event's raw body as a download. */
  eventBody?: (req: IncomingMessage, res: ServerResponse, eventId: string) => Promise<void>;
  /** GET /api/events/export (session-authenticated): the Activity page's export download. */
  eventExport?: Handler;
  /** GET /metrics; absent (METRICS_ENABLED=false, or served on METRICS_PORT): 404. */
  metrics?: Handler;
}

function pathOf(url: string): string {
  const mark = url.indexOf("?");
  return mark === -1 ? url : url.slice(0, mark);
}

function noMetricsHere(res: ServerResponse): void {
  sendError(res, 404, "not_found", "There are no metrics on this port (METRICS_ENABLED=false, or METRICS_PORT serves them).");
}

function setHeaders(res: ServerResponse, headers: Readonly<Record<string, string>>): void {
  for (const name in headers) res.setHeader(name, headers[name]!);
}

/**
 * One node:http listener: capture URLs, health, the public API, and the dashboard (tRPC, the
 * replay route, its files and pages). The dashboard answers only at our own origins (a
 * foreign Host gets 421: DNS rebinding and spoofed Hosts reach nothing), with its security
 * headers. Unknown /api/ paths get a JSON 404.
 */
export interface RequestListenerOptions {
  logger: Logger;
  origins: OriginPolicy;
  /**
   * Whether health probes and /assets files get access lines (they are logged at debug): when
   * not, they skip the bookkeeping of a line nobody would write.
   */
  logRoutineRequests?: boolean;
  /**
   * Whether the other requests (captures, dashboard, API) get access lines (info): when not
   * (LOG_LEVEL warn or error), captures skip the bookkeeping too.
   */
  logRequests?: boolean;
}

export function createRequestListener(routes: Routes, options: RequestListenerOptions) {
  const dashboard = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    if (!options.origins.isOwnHost(req.headers.host)) {
      sendError(res, 421, "misdirected", `the dashboard answers at ${options.origins.origins()[0]}`);
      return;
    }
    setHeaders(res, DASHBOARD_SECURITY_HEADERS);
    if (decodePathSegment(path) === undefined) {
      sendError(res, 400, "bad_request", MALFORMED_PATH_MESSAGE);
      return;
    }
    if (routes.trpc && (path === "/trpc" || path.startsWith("/trpc/"))) return routes.trpc(req, res);
    const replayOf = routes.replay && matchReplayRoute(path);
    if (replayOf) return routes.replay!(req, res, replayOf);
    const bodyOf = routes.eventBody && matchEventBodyRoute(path);
    if (bodyOf) return routes.eventBody!(req, res, bodyOf);
    if (routes.eventExport && path === EVENT_EXPORT_PATH) return routes.eventExport(req, res);
    if (path.startsWith("/api/") || !routes.pages) {
      sendError(res, 404, "not_found", `There is nothing at ${req.method} ${path}. Check the URL.`);
      return;
    }
    if (routes.staticFiles && (await routes.staticFiles(req, res))) return;
    return routes.pages(req, res);
  };
  const dispatch = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    if (path.startsWith("/api/webhook/")) return routes.capture(req, res);
    if (path === "/healthz" && (req.method === "GET" || req.method === "HEAD")) return routes.health(req, res);
    if (path === "/readyz" && (req.method === "GET" || req.method === "HEAD")) return routes.readiness(req, res);
    // Any Host: a scraper names the instance it scrapes, not BASE_URL.
    if (path === "/metrics") return routes.metrics ? routes.metrics(req, res) : noMetricsHere(res);
    if (routes.publicApi && (path === "/api/v1" || path.startsWith("/api/v1/"))) {
      setHeaders(res, API_SECURITY_HEADERS);
      return routes.publicApi(req, res);
    }
    return dashboard(req, res, path);
  };
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const url = req.url ?? "/";
    // Only origin-form targets (/path?query): an absolute-form target names a host that is not
    // ours to trust, and "//host/path" reads as one to any URL parser downstream.
    if (!url.startsWith("/") || url.startsWith("//")) {
      sendError(res, 400, "bad_request", "The request target must be a path starting with /. Check the URL.");
      return;
    }
    if (req.headers.host === undefined && req.httpVersionMinor >= 1) {
      sendError(res, 400, "bad_request", "HTTP/1.1 requests need a Host header");
      return;
    }
    const path = pathOf(url);
    dispatch(req, res, path).catch((error: unknown) => {
      options.logger.error("request failed", { method: req.method, url: path, error: error instanceof Error ? error.stack : String(error) });
      if (!res.headersSent) sendError(res, 500, "internal", "internal error");
      else res.destroy();
    });
  };
  return (req: IncomingMessage, res: ServerResponse): void => {
    const requestId = requestIdFor(req.headers["x-request-id"]);
    res.setHeader("x-request-id", requestId);
    withRequestId(requestId, () => {
      const routine = isRoutine(pathOf(req.url ?? "/"));
      if ((routine ? options.logRoutineRequests : options.logRequests) !== false) logAccess(options.logger, req, res, requestId, routine);
      handle(req, res);
    });
  };
}

/** Health probes and the dashboard's built files: frequent and routine, logged at debug. */
function isRoutine(path: string): boolean {
  return path === "/healthz" || path === "/readyz" || path.startsWith("/assets/");
}

/**
 * One access line per request, when its answer is sent (or the client left). Health probes
 * and /assets files are frequent and routine: debug; everything else (captures, dashboard,
 * API): info. A capture's line names its slug, and the capture handler adds the stored
 * event's id and body size (never the body or its headers). The path is logged without its
 * query string, which may carry tokens. Handlers add their own fields to this line
 * (annotateAccess) rather than writing a second one.
 */
function logAccess(logger: Logger, req: IncomingMessage, res: ServerResponse, requestId: string, routine: boolean): void {
  const started = performance.now();
  // "close" fires from the socket's context, not the request's: bind the id again.
  res.once("close", () => withRequestId(requestId, () => {
    const path = pathOf(req.url ?? "/");
    const capture = path.startsWith("/api/webhook/") ? parseCapturePath(path) : undefined;
    const fields = {
      method: req.method,
      path,
      status: res.statusCode,
      duration_ms: Math.round((performance.now() - started) * 10) / 10,
      ...(res.writableFinished ? {} : { aborted: true }),
      ...(capture ? { slug: capture.slug } : {}),
      ...accessAnnotations(res),
    };
    if (routine) logger.debug("request", fields);
    else logger.info("request", fields);
  }));
}

/**
 * The listener of METRICS_PORT: GET /metrics and nothing else (every other path gets a JSON
 * 404), so that port can be opened to a scraper without opening the dashboard or capture.
 */
export function createMetricsListener(metrics: Handler, options: { logger: Logger }) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    if (pathOf(req.url ?? "/") !== "/metrics") {
      sendError(res, 404, "not_found", "Only /metrics is served on this port.");
      return;
    }
    metrics(req, res).catch((error: unknown) => {
      options.logger.error("metrics request failed", { error: error instanceof Error ? error.stack : String(error) });
      if (!res.headersSent) sendError(res, 500, "internal", "internal error");
      else res.destroy();
    });
  };
}
