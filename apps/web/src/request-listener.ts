import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "@rehook/core";
import { sendError } from "@rehook/http";

type Handler = (req: IncomingMessage, res: ServerResponse) => Promise<void>;

export interface Routes {
  capture: Handler;
  health: Handler;
}

/** One node:http listener: capture URLs, health, and JSON 404s for everything else (for now). */
export function createRequestListener(routes: Routes, logger: Logger) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    const url = req.url ?? "/";
    let handler: Handler | undefined;
    if (url.startsWith("/api/webhook/")) handler = routes.capture;
    else if (url === "/healthz" && (req.method === "GET" || req.method === "HEAD")) handler = routes.health;

    if (!handler) {
      sendError(res, 404, "not_found", `nothing at ${req.method} ${url.split("?")[0]}`);
      return;
    }
    handler(req, res).catch((error: unknown) => {
      logger.error("request failed", { method: req.method, url: url.split("?")[0], error: error instanceof Error ? error.stack : String(error) });
      if (!res.headersSent) sendError(res, 500, "internal", "internal error");
      else res.destroy();
    });
  };
}
