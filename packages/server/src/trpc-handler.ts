import type { IncomingMessage, ServerResponse } from "node:http";
import { createHTTPHandler } from "@trpc/server/adapters/standalone";
import { appRouter } from "@rehook/api";
import { retryAfterSecondsOf, UserError, type Logger } from "@rehook/core";
import { decodePathSegment, MALFORMED_PATH_MESSAGE, OpenStreams, readBodyOrRefuse, sendErrorAndClose, watchBackpressure, type StreamBounds } from "@rehook/http";
import { requestContext, requestSession, type DashboardOptions } from "./dashboard-context.js";

/** A tRPC request body (one call or a batch of them) is small JSON: past this it is refused unread. */
export const MAX_TRPC_BODY_BYTES = 1024 * 1024;
/** Without a session only sign-in, sign-up and the like can be called, whose input is tiny: a small cap gives such uploads the short grace of small bodies. */
export const MAX_ANONYMOUS_TRPC_BODY_BYTES = 64 * 1024;
/** Calls in one batch: a batch would otherwise multiply everything a single request is allowed. */
export const MAX_TRPC_BATCH_CALLS = 10;

/**
 * The procedures one /trpc request names: /trpc/a.b,c.d?batch=1 -> ["a.b", "c.d"]. Decoded
 * first, as tRPC does before it splits (so "%2C" separates calls here too); undefined when
 * the path's escapes are malformed.
 */
function procedurePaths(url: string): string[] | undefined {
  return decodePathSegment(url.slice("/trpc/".length).split("?")[0] ?? "")
    ?.split(",")
    .filter(Boolean);
}

/**
 * Why a request is refused before tRPC sees it, or null. Sign-up and log-in are never batched,
 * so each attempt is one request that the per-address limits and the hashing queue count.
 */
function batchRefusal(paths: string[] | undefined): string | null {
  if (!paths) return MALFORMED_PATH_MESSAGE;
  if (paths.length > MAX_TRPC_BATCH_CALLS) return `at most ${MAX_TRPC_BATCH_CALLS} calls may be batched in one request`;
  if (paths.length > 1 && paths.some((path) => path.startsWith("auth."))) return "auth procedures cannot be batched: send each on its own";
  return null;
}

/**
 * Bounds a subscription's SSE response. tRPC's adapter already waits for 'drain' between
 * writes and pulls the procedure's generator only then (through ReadableStreams that hold a
 * chunk or two), so a client that does not read stops the reading; this drops such a client
 * once its socket has refused bytes for `maxBlockedMs` or too much waits for it.
 */
function boundSubscriptionStream(res: ServerResponse, bounds: Partial<StreamBounds> | undefined, logger: Logger): void {
  watchBackpressure(res, bounds, (reason) => logger.info("live feed client dropped", { reason }));
}

/** The dashboard's procedures at /trpc: batched queries and mutations, subscriptions over SSE (`streamBounds`: see boundSubscriptionStream). */
export function createTrpcHandler(options: DashboardOptions & { logger: Logger; streamBounds?: Partial<StreamBounds> }) {
  const handler = createHTTPHandler({
    router: appRouter,
    basePath: "/trpc/",
    maxBatchSize: MAX_TRPC_BATCH_CALLS,
    createContext: ({ req, res }) => requestContext(req, res, options),
    // A refusal that says how long to wait (a paced alert test) carries Retry-After, as on /api/v1.
    responseMeta({ errors }) {
      const waits = errors.flatMap((error) => (error.cause instanceof UserError ? [retryAfterSecondsOf(error.cause)] : [])).filter((wait): wait is number => wait !== null);
      return waits.length === 0 ? {} : { headers: { "retry-after": String(Math.max(...waits)) } };
    },
    onError({ error, path }) {
      if (error.code === "INTERNAL_SERVER_ERROR") options.logger.error("procedure failed", { path: path ?? "?", error: error.cause?.stack ?? error.stack ?? error.message });
    },
  });
  // Open subscription streams never end by themselves: shutdown ends them, and refuses new ones.
  const streams = new OpenStreams();
  /** False when the request was a subscription refused because shutdown has begun (answered 503). */
  const admitStream = (req: IncomingMessage, res: ServerResponse): boolean => {
    if (!String(req.headers.accept ?? "").includes("text/event-stream")) return true;
    if (!streams.admit(res)) return false;
    boundSubscriptionStream(res, options.streamBounds, options.logger);
    return true;
  };
  return {
    handle: async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
      const refusal = batchRefusal(procedurePaths(req.url ?? "/"));
      if (refusal) {
        sendErrorAndClose(res, 400, "bad_request", refusal);
        return;
      }
      if (req.method !== "GET" && req.method !== "HEAD") {
        // A signed-in caller may use the part of the dashboard's slice anonymous bodies cannot fill.
        const authenticated = (await requestSession(req, options.services).catch(() => null)) !== null;
        const maxBytes = authenticated ? MAX_TRPC_BODY_BYTES : MAX_ANONYMOUS_TRPC_BODY_BYTES;
        const body = await readBodyOrRefuse(req, res, maxBytes, { what: "the request body", intake: { bodies: options.bodies, slice: "dashboard", authenticated } });
        if (!body) return;
        // tRPC's adapter takes an already-read body from req.body instead of reading the stream again.
        (req as IncomingMessage & { body?: string }).body = body.toString("utf8");
      }
      if (admitStream(req, res)) handler(req, res);
    },
    /** Shutdown has begun: ends the open subscription streams (clients to reconnect after `reconnectAfterMs`), and answers new ones 503 from now on. */
    closeStreams(reconnectAfterMs?: number): void {
      streams.endAll(reconnectAfterMs);
    },
  };
}
