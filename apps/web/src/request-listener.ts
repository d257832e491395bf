import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "@rehook/core";
import { matchReplayRoute, sendError } from "@rehook/http";

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export interface Routes {
  capture: Handler;
  health: Handler;
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
}

function pathOf(url: string): string {
  const mark = url.indexOf("?");
  return mark === -1 ? url : url.slice(0, mark);
}

/**
 * One node:http listener: capture URLs, health, tRPC, the dashboard's files and pages;
 * unknown /api/ paths get a JSON 404.
 */
export function createRequestListener(routes: Routes, logger: Logger) {
  const dispatch = async (req: IncomingMessage, res: ServerResponse, path: string): Promise<void> => {
    if (path.startsWith("/api/webhook/")) return routes.capture(req, res);
    if (path === "/healthz" && (req.method === "GET" || req.method === "HEAD")) return routes.health(req, res);
    if (routes.trpc && (path === "/trpc" || path.startsWith("/trpc/"))) return routes.trpc(req, res);
    if (routes.publicApi && (path === "/api/v1" || path.startsWith("/api/v1/"))) return routes.publicApi(req, res);
    const replayOf = routes.replay && matchReplayRoute(path);
    if (replayOf) return routes.replay!(req, res, replayOf);
    if (path.startsWith("/api/") || !routes.pages) {
      sendError(res, 404, "not_found", `nothing at ${req.method} ${path}`);
      return;
    }
    if (routes.staticFiles && (await routes.staticFiles(req, res))) return;
    return routes.pages(req, res);
  };
  return (req: IncomingMessage, res: ServerResponse): void => {
    const path = pathOf(req.url ?? "/");
    dispatch(req, res, path).catch((error: unknown) => {
      logger.error("request failed", { method: req.method, url: path, error: error instanceof Error ? error.stack : String(error) });
      if (!res.headersSent) sendError(res, 500, "internal", "internal error");
      else res.destroy();
    });
  };
}
