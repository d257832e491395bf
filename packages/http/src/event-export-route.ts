import type { IncomingMessage, ServerResponse } from "node:http";
import { isUserError } from "@rehook/core";
import { captureBaseOf, dashboardActor, openEventExport, type Services } from "@rehook/services";
import { exportFilter, parseWith } from "./api-v1/routes.js";
import { EventExportQuery } from "./api-v1/schemas.js";
import { STATUS_FOR_CODE } from "./error-status.js";
import { sendEventExport } from "./event-export.js";
import { sendError } from "./respond.js";
import { requestOrigin } from "./request-origin.js";
import type { StreamBounds } from "./stream-backpressure.js";

export const EVENT_EXPORT_PATH = "/api/events/export";

/**
 * GET /api/events/export?format=ndjson|har&<the API's list filters>, authenticated by the
 * session cookie: the Activity page's "Export" link, answered as an attachment exactly as
 * GET /api/v1/events/export is. A read (no Origin check: another site can start the
 * download but cannot read it).
 */
export function createEventExportRoute(options: { services: Services; streamBounds?: Partial<StreamBounds>; trustedProxyHops?: number }) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== "GET") {
      sendError(res, 405, "method_not_allowed", "Use GET to export events.", { allow: "GET" });
      return;
    }
    const signedIn = await dashboardActor(options.services, req.headers.cookie);
    if (!signedIn) {
      sendError(res, 401, "unauthorized", "Sign in to the dashboard first: this route uses its session cookie.");
      return;
    }
    let events;
    let format;
    try {
      const query = parseWith(EventExportQuery, Object.fromEntries(new URL(req.url ?? "/", "http://localhost").searchParams), "query");
      format = query.format;
      events = openEventExport(options.services, { teamId: signedIn.actor.teamId, by: { ...signedIn.actor, origin: requestOrigin(req, res, options.trustedProxyHops) }, filter: exportFilter(query) });
    } catch (error) {
      if (!isUserError(error)) throw error;
      sendError(res, STATUS_FOR_CODE[error.code], error.code, error.message);
      return;
    }
    await sendEventExport(res, events, format, { baseUrl: captureBaseOf(options.services), bounds: options.streamBounds });
  };
}
