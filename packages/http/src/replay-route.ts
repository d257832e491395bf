import type { IncomingMessage, ServerResponse } from "node:http";
import { isUserError, type Logger } from "@rehook/core";
import { parseInput, replayContracts, runContract, type Services } from "@rehook/services";
import { sessionReplayOutcome } from "./api-v1/presenters/replay-attempt.js";
import { readBodyOrRefuse } from "./body.js";
import type { RequestBodies } from "./request-bodies.js";
import { STATUS_FOR_CODE } from "./error-status.js";
import type { OriginPolicy } from "./origins.js";
import { sendError, sendErrorAndClose, sendJson } from "./respond.js";
import { sessionEventRoute } from "./session-event-route.js";

const ROUTE = /^\/api\/events\/([^/]+)\/replay$/;

/** A hand-written body's text field: as given, null when absent, anything else as its text. */
const lenientText = (value: unknown): string | null => (typeof value === "string" ? value : value === undefined || value === null ? null : String(value));
// Room for an edited request (overrides) as well as the target; as the API's JSON limit.
const MAX_BODY_BYTES = 1024 * 1024;

/** The event id in /api/events/{eventId}/replay, if this is that route. */
export function matchReplayRoute(path: string): string | undefined {
  return ROUTE.exec(path)?.[1];
}

/**
 * POST /api/events/{eventId}/replay, authenticated by the session cookie: replays a stored
 * event and answers the attempt (for environment matched or failed, every attempt). The same
 * use case as the dashboard's replay procedure.
 */
export function createReplayRoute(options: { services: Services; origins: OriginPolicy; logger: Logger; trustedProxyHops?: number; bodies: RequestBodies }) {
  const route = { services: options.services, methods: ["POST"], wrongMethod: "use POST to replay an event", trustedProxyHops: options.trustedProxyHops };
  return sessionEventRoute(route, async (req, res, { actor, eventId }) => {
    if (!options.origins.isSameOrigin(req)) {
      sendErrorAndClose(res, 403, "forbidden", "This cross-site request was refused. Send it from the dashboard itself.");
      return;
    }
    if (!String(req.headers["content-type"] ?? "").toLowerCase().startsWith("application/json")) {
      sendErrorAndClose(res, 415, "unsupported_media_type", "The body must be JSON. Send it with Content-Type: application/json.");
      return;
    }
    const read = await readBodyOrRefuse(req, res, MAX_BODY_BYTES, { intake: { bodies: options.bodies, slice: "dashboard", authenticated: true } });
    if (!read) return;
    let body: { environment?: unknown; customUrl?: unknown; destinationId?: unknown; overrides?: unknown };
    try {
      body = JSON.parse(read.toString("utf8") || "null") ?? {};
      if (typeof body !== "object" || Array.isArray(body)) throw new Error("not an object");
    } catch {
      sendError(res, 400, "bad_request", 'the body must be a JSON object like {"environment": "original"}');
      return;
    }
    try {
      // The dashboard's replay (replays.create), with the lenient reading of a hand-written body this route always had.
      const replay = replayContracts.replayEventContract;
      const input = parseInput(replay.input, {
        eventId,
        // Left out (with destinationId or customUrl): the target they imply.
        environment: body.environment === undefined || body.environment === null ? undefined : String(body.environment),
        destinationId: lenientText(body.destinationId),
        customUrl: lenientText(body.customUrl),
        overrides: body.overrides,
      });
      const outcome = replay.output.parse(await runContract(replay, options.services, actor, input));
      sendJson(res, 200, sessionReplayOutcome(outcome));
    } catch (error) {
      if (!isUserError(error)) throw error;
      sendError(res, STATUS_FOR_CODE[error.code], error.code, error.message);
    }
  });
}
