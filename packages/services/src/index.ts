export { captureBaseOf, type ServiceContext } from "./context.js";
export { createServices, type ServiceInfrastructure, type Services } from "./service-graph.js";
export { captureRequest, type CaptureInput, type CaptureOutcome } from "./capture.js";
export { IngressRules, type IngressRulesOptions } from "./ingress-rules.js";
export { INLINE_BODY_BYTES, INLINE_FILTER_WORK } from "./capture-routing.js";
export {
  CAPTURE_WORKER_IDLE_MS,
  CAPTURE_WORKER_MAX_QUEUE,
  CAPTURE_WORKER_TIMEOUT_MS,
  CaptureWorkerUnavailable,
  createCapturePool,
  type CapturePool,
  type CapturePoolOptions,
  type RouteTask,
} from "./capture-pool.js";
export { KnownSlugs, MAX_SLUG_LOOKUP_BATCH, MAX_SLUGS_WAITING_FOR_LOOKUP, SlugLookupBusyError, type KnownSlugsOptions } from "./known-slugs.js";
export { MAX_SIGNATURE_PREFIX_LENGTH, type IngressSettingsInput, type IngressView } from "./ingress-settings.js";
export {
  createEndpoint,
  deleteEndpoint,
  endpointSecret,
  endpointView,
  getEndpoint,
  listEndpoints,
  MAX_PAUSE_AFTER_FAILURES,
  MAX_RETENTION_DAYS,
  updateEndpoint,
  type DeliverySettings,
  type EndpointRef,
  type EndpointListItem,
  type EndpointView,
} from "./endpoints.js";
export { createUser, requireUserByEmail, type UserView } from "./users.js";
export { clearedSsoCookie, finishSsoSignIn, signInOptions, SSO_COOKIE, SSO_PENDING_SECONDS, startSsoSignIn, type SsoOutcome } from "./sso.js";
export { currentSession, logIn, logOut, signUp, signupMode, startHintFor, type CurrentSession, type SignedIn } from "./identity.js";
export { acceptInvite, checkInvite, createInvite, listInvites, revokeInvite, type InviteView } from "./invites.js";
export {
  ATTEMPT_BODY_PREVIEW_BYTES,
  BODY_DOWNLOAD_CHUNK_BYTES,
  deleteEvent,
  getEvent,
  getEventAttempt,
  LIVE_BATCH_IDS,
  listEvents,
  MAX_EVENT_OFFSET,
  type ListEventsInput,
  openEventBody,
  openLiveEvents,
  PAYLOAD_PREVIEW_BYTES,
  type EventBodyDownload,
  type EventPage,
  type EventSummary,
  type EventView,
  type LiveFilter,
  type LiveRowLoader,
} from "./events.js";
export { authenticateApiKey, createApiKey, listApiKeys, revokeApiKey, type ApiKeyView } from "./api-keys.js";
export { getNotificationSettings, saveNotificationSettings, sendTestNotification, type NotificationSettingsView } from "./notification-settings.js";
export { parseInput } from "./validation.js";
export {
  defaultLocalVia,
  handLocalReplayToListener,
  localReplayOutcome,
  localReplayRequest,
  recordLocalReplay,
  type ListenerHandoff,
} from "./local-replays.js";
export {
  editableReplayRequest,
  getReplay,
  listReplays,
  replayAttemptView,
  replayEvent,
  replayEventAttempts,
  type ReplayAttemptView,
  type ReplayEventRequest,
  type ReplayOutcome,
  type ReplayDetail,
  type ReplaySummary,
} from "./replays.js";
export {
  compareResponses,
  listEventResponses,
  MAX_COMPARED_REPLAYS,
  type ComparedResponse,
  type ResponseComparison,
  type ResponseOption,
  type ResponseRef,
} from "./compare-responses.js";
export { BulkReplays, MAX_RUNNING_BULK_REPLAYS_PER_TEAM, type BulkReplayDeps, type ReplayJobView } from "./bulk-replays.js";
export { activityCompaction, auditRetention, countsCompaction, dedupKeyPurge, endpointPurge, eventRetention, scheduleUpkeep, sessionPurge, type RetentionOptions } from "./purges.js";
export { searchIndexing, type SearchIndexingOptions } from "./search-indexing.js";
export { MAX_WAITING_EVENT_IDS, openEndpointEventStream, type FullEvent, type StreamedItem } from "./event-stream.js";
export { limitStreams, MAX_STREAMS_PER_INSTANCE, MAX_STREAMS_PER_USER, StreamSlots, streamSlotsOf, type StreamLimits } from "./stream-slots.js";
export { resumeEndpoint, retryEvent, retryFailedEvents, type RetryQueued } from "./retries.js";
export {
  bodyView,
  contentEncodingOf,
  decodeContentEncoding,
  DECODED_BODY_MAX_BYTES,
  DECODED_ENCODINGS,
  HEX_PREVIEW_BYTES,
  inspectEventBody,
  type BodyInspection,
  type BodyView,
  type DecodedBody,
} from "./event-body-view.js";
export { eventActivity, type ActivityPoint, type ActivityView } from "./event-activity.js";
export { EXPORT_PAGE_EVENTS, openEventExport, type ExportFilter } from "./event-export.js";
export { defineContract, requireRole, runContract, wireName, type Actor, type Contract, type RestMapping, type Role } from "./contracts/contract.js";
export * as teamContracts from "./contracts/teams.js";
export { chosenTeamId, dashboardActor, TEAM_COOKIE, teamChoiceCookie, type DashboardActor } from "./dashboard-actor.js";
export { adoptTeam, operatorTeamBySlug, requireDefaultTeam } from "./default-team.js";
export { actorFor, actorInTeam, createTeam, findMembership, insertTeamNamed, listMembers, listTeams, type MemberView, type TeamView } from "./teams.js";
export { untilAccessLost, type StreamAccess } from "./access-watch.js";
export * as eventContracts from "./contracts/events.js";
export { eventFilterFields, eventFilterInput, eventSummary, listEventsInput, type EventFilterInput } from "./schemas/events.js";
export * as replayContracts from "./contracts/replays.js";
export * as deliveryContracts from "./contracts/deliveries.js";
export { resolveDelivery, type DeliveryResolutionView } from "./delivery-resolution.js";
export { replayAttempt, replayEventInput, replayOutcome } from "./schemas/replays.js";
export * as settingsContracts from "./contracts/settings.js";
export * as endpointContracts from "./contracts/endpoints.js";
export * as destinationContracts from "./contracts/destinations.js";
export { createDestination, deleteDestination, destinationView, listDestinations, resumeDestination, testFilter, updateDestination, type DestinationView } from "./destinations.js";
export { auditActorOf, auditLogInput, CLI_OPERATOR, listAuditLog, recordAudit, recordOperatorAudit, type AuditedBy, type AuditLogInput, type AuditPage } from "./audit.js";
export * as auditContracts from "./contracts/audit.js";
export * as alertContracts from "./contracts/alerts.js";
export { ALL_CONTRACTS } from "./contracts/all.js";
export { createAlertRule, deleteAlertRule, listAlertRulesOf, sendTestAlert, updateAlertRule, type AlertRuleInput, type AlertRuleView } from "./alert-rules.js";
export { ALERT_WATCH_JOB, alertWatch, watchAlertThresholds } from "./alert-watch.js";
