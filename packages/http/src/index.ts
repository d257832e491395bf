export { readBodyCapped, type BodyResult } from "./body.js";
export { createCaptureHandler, type CaptureHandlerOptions } from "./capture-handler.js";
export { answerClientError } from "./client-error.js";
export { clientIp } from "./client-ip.js";
export { createHealthHandler } from "./health-handler.js";
export { sendError, sendErrorAndClose, sendJson, sendJsonText } from "./respond.js";
export { STATUS_FOR_CODE } from "./error-status.js";
export { isSameOriginRequest, ownOrigins } from "./origins.js";
export { createReplayRoute, matchReplayRoute } from "./replay-route.js";
