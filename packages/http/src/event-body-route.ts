import type { IncomingMessage, ServerResponse } from "node:http";
import { isUserError } from "@rehook/core";
import { openEventBody, type Services } from "@rehook/services";
import { STATUS_FOR_CODE } from "./error-status.js";
import { sendEventBody } from "./event-body.js";
import { sendError } from "./respond.js";
import { sessionEventRoute } from "./session-event-route.js";
import type { StreamBounds } from "./stream-backpressure.js";

const ROUTE = /^\/api\/events\/([^/]+)\/body$/;

/** The event id in /api/events/{eventId}/body, if this is that route. */
export function matchEventBodyRoute(path: string): string | undefined {
  return ROUTE.exec(path)?.[1];
}

/**
 * GET /api/events/{eventId}/body, authenticated by the session cookie: the event page's
 * "Download raw" link. Every stored byte as an attachment with the request's own
 * Content-Type (application/octet-stream when it had none). A read (no Origin check needed:
 * another site can start the download but cannot read it).
 */
export function createEventBodyRoute(options: { services: Services; streamBounds?: Partial<StreamBounds> }) {
  return sessionEventRoute(
    { services: options.services, methods: ["GET", "HEAD"], wrongMethod: "use GET to download an event's body" },
    async (req, res, { actor, eventId }) => {
      let download;
      try {
        download = await openEventBody(options.services, { teamId: actor.teamId, eventId });
      } catch (error) {
        if (!isUserError(error)) throw error;
        sendError(res, STATUS_FOR_CODE[error.code], error.code, error.message);
        return;
      }
      await sendEventBody(req, res, download, { bounds: options.streamBounds, contentType: "stored" });
    },
  );
}
