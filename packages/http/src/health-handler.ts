import type { IncomingMessage, ServerResponse } from "node:http";
import { sendError, sendJson } from "./respond.js";

/** GET /healthz: 200 when the database answers, 503 when it does not. */
export function createHealthHandler(isDatabaseReachable: () => Promise<boolean>) {
  return async function handleHealth(_req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (await isDatabaseReachable()) sendJson(res, 200, { status: "ok" }, { "cache-control": "no-store" });
    else sendError(res, 503, "unavailable", "the database is unreachable", { "cache-control": "no-store" });
  };
}
