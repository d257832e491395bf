export { accessAnnotations, annotateAccess, type AccessFields } from "./access-fields.js";
export { readBodyCapped, readBodyOrRefuse, refusalAnswer, refuseBody, type BodyIntake, type BodyRefused, type BodyResult } from "./body.js";
export { BODY_BUDGET_RETRY_AFTER_SECONDS } from "./body-budget.js";
export { RequestBodies, type BodyRequester, type OpenUpload, type RequestBodiesOptions } from "./request-bodies.js";
export { endAfterRequest, LINGER_IDLE_MS, LINGER_MAX_BYTES, LINGER_MAX_MS, type LingerBounds } from "./lingering-close.js";
export { createCaptureHandler, type CaptureHandlerOptions, type DashboardHostRule } from "./capture-handler.js";
export { DelayedAnswers, MAX_DELAYED_ANSWERS } from "./delayed-answers.js";
export { answerClientError } from "./client-error.js";
export { clientIp } from "./client-ip.js";
export { createHealthHandler, createReadinessHandler, MIGRATIONS_CHECK_CACHE_MS, type ReadinessChecks } from "./health-handler.js";
export { sendError, sendErrorAndClose, sendJson, sendJsonText } from "./respond.js";
export { STATUS_FOR_CODE } from "./error-status.js";
export { createOriginPolicy, type OriginPolicy, type OriginPolicyOptions } from "./origins.js";
export { decodePathSegment, MALFORMED_PATH_MESSAGE } from "./path-segment.js";
export { DASHBOARD_SECURITY_HEADERS, API_SECURITY_HEADERS, contentSecurityPolicy } from "./security-headers.js";
export { createReplayRoute, matchReplayRoute } from "./replay-route.js";
export { createEventBodyRoute, matchEventBodyRoute } from "./event-body-route.js";
export { downloadContentType, sendEventBody, type SendEventBodyOptions } from "./event-body.js";
export { sendEventExport, type ExportOptions } from "./event-export.js";
export { harEntry, harStart, HAR_END, ndjsonLine } from "./export/index.js";
export { createEventExportRoute, EVENT_EXPORT_PATH } from "./event-export-route.js";
export { PieceWriter, type Piece } from "./piece-writer.js";
export { DEFAULT_STREAM_BOUNDS, MAX_STREAM_BLOCKED_MS, MAX_STREAM_QUEUED_BYTES, watchBackpressure, type BackpressureWatch, type StreamBounds } from "./stream-backpressure.js";
export { SseWriter, type SsePiece } from "./sse-writer.js";
export { OpenStreams, STREAM_RETRY_MS } from "./open-streams.js";
export { createPublicApi, type PublicApiOptions } from "./api-v1/handler.js";
export { API_VERSION, openApiDocument } from "./api-v1/openapi.js";
// Every /api/v1 route (the isolation tests try each one).
export { ROUTES, type Route } from "./api-v1/routes.js";
export { deliverySettingsFromWire, ingressSettingsFromWire, type DeliverySettingsWire, type IngressSettingsWire } from "./api-v1/endpoint-input.js";
// The CLI prints its lists and details as the API answers them (rehook events list --json).
export { restEventDetail, restEventList } from "./api-v1/presenters/event.js";
export { restEndpointList } from "./api-v1/presenters/endpoint.js";
export { eventCursor } from "./api-v1/cursor.js";
export {
  PUBLIC_ENDPOINT_FIELDS,
  restDestination,
  restDestinationList,
  restEndpoint,
  restEndpointListItem,
  restReplayAttempt,
  restReplayOutcome,
  sessionReplayAttempt,
  wireApiKey,
  wireEndpoint,
  wireInvite,
  wireUser,
  type RestEndpoint,
  type WireEndpoint,
} from "./api-v1/presenters/index.js";
export {
  Buckets,
  CAPTURE_BATCH_BUCKETS,
  CAPTURE_DURATION_BUCKETS,
  createMetricsHandler,
  DELIVERY_DURATION_BUCKETS,
  METRICS_RETRY_AFTER_SECONDS,
  MetricsUnavailable,
  PENDING_CACHE_MS,
  RehookMetrics,
  type MetricsHandlerOptions,
  type MetricsScrape,
  type MetricsSources,
  type RehookMetricsOptions,
} from "./metrics.js";
export { CLUSTER_SCRAPE_ANSWER_MARGIN_MS, CLUSTER_SCRAPE_WAIT_MS, ClusterMetricsScrape, serveClusterMetrics, WorkerTally } from "./cluster-metrics.js";
