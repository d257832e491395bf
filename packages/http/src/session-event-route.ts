import type { IncomingMessage, ServerResponse } from "node:http";
import { dashboardActor, type DashboardActor, type Services } from "@rehook/services";
import { decodePathSegment, MALFORMED_PATH_MESSAGE } from "./path-segment.js";
import { sendError } from "./respond.js";
import { requestOrigin } from "./request-origin.js";

export type SessionEventHandler = (req: IncomingMessage, res: ServerResponse, request: DashboardActor & { eventId: string }) => Promise<void>;

/**
 * A route at /api/events/{eventId}/… for the dashboard's signed-in user: the method checked
 * (405 with Allow), the session cookie required (401), the id decoded (400 when its escapes
 * are malformed); then `handle` runs with the session, the actor in the chosen team and the id.
 */
export function sessionEventRoute(
  options: { services: Services; methods: readonly string[]; wrongMethod: string; trustedProxyHops?: number },
  handle: SessionEventHandler,
) {
  return async (req: IncomingMessage, res: ServerResponse, rawEventId: string): Promise<void> => {
    if (!options.methods.includes(req.method ?? "")) {
      sendError(res, 405, "method_not_allowed", options.wrongMethod, { allow: options.methods.join(", ") });
      return;
    }
    const signedIn = await dashboardActor(options.services, req.headers.cookie);
    if (!signedIn) {
      sendError(res, 401, "unauthorized", "Sign in to the dashboard first: this route uses its session cookie.");
      return;
    }
    const eventId = decodePathSegment(rawEventId);
    if (eventId === undefined) {
      sendError(res, 400, "bad_request", MALFORMED_PATH_MESSAGE);
      return;
    }
    // The actor carries where the request came from, for the audit log.
    await handle(req, res, { ...signedIn, actor: { ...signedIn.actor, origin: requestOrigin(req, res, options.trustedProxyHops) }, eventId });
  };
}
