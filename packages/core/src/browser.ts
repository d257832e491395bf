// The part of core a browser bundle may import (no Node modules anywhere below): the
// dashboard formats times, statuses and payloads with the same code the server uses.
export { EVENT_STATUSES, type EventStatus } from "./events.js";
export type { HealthState } from "./health.js";
export { relativeTime } from "./relative-time.js";
export { describePayload, hexDump, jsonTokens, type JsonToken, type JsonTokenKind, type PayloadView } from "./payload-view.js";
// The payload inspector: forms, query strings, XML, JSON tree search, the raw download's name.
export * from "./payload/index.js";
export { curlCommand, shellQuote, type CurlInput } from "./curl.js";
// Replays: where a replay goes (the server's own rule) and what a browser-side (local) replay sends.
export { forwardableHeaders, forwardTarget, type ForwardHeaderOptions, type ForwardTarget } from "./forwarding.js";
export { DEFAULT_LOCAL_PORT, isLocalPort, LOCAL_REPLAY_ORIGIN, localReplayOrigin, REPLAY_ENVIRONMENTS, replayTarget, type ReplayEnvironment, type ReplaySource, type ReplayTarget } from "./replay-target.js";
// Local replays from the browser: what needs a CORS preflight, what happened, how to allow it.
export {
  corsFixes,
  failedFetchOutcome,
  noCorsRequest,
  outcomeExplanation,
  outcomeHeadline,
  outcomeRecordError,
  preflightReasons,
  wasSent,
  type BrowserReplayOutcome,
} from "./browser-replay.js";
// The replay editor: a captured body as text a text box keeps byte for byte, and "Format".
export { editableBody, fromTextBox, parsesAsJson, reindentJson, textBoxText, type EditableBody } from "./editable-body.js";
export { FAN_OUT_TARGETS, isUnresolvedFailure, matchedDestinations, originalDestination, planReplay, REPLAY_TARGETS, type PlanDelivery, type PlanDestination, type PlannedSend, type ReplayPlan, type ReplayPlanSource, type ReplayTargetName } from "./replay-plan.js";
export { eventResolved, MAX_RESOLUTION_NOTE_LENGTH } from "./delivery-resolution.js";
// Signing up: what the page says when SIGNUP refuses, the same words the server uses.
// Alert rules: the triggers and channels the Settings form offers, and their labels.
export { ALERT_CHANNEL_LABELS, ALERT_CHANNELS, ALERT_TRIGGER_LABELS, ALERT_TRIGGERS, type AlertChannel, type AlertTrigger } from "./alerts/rules.js";
// Single sign-on: the login page shows a failure by its code (nothing from the query is echoed).
export { isSsoFailure, PASSWORD_LOGIN_OFF_MESSAGE, SSO_FAILURES, type SsoFailure } from "./sso.js";
export { INVITE_REQUIRED_MESSAGE, inviteAccountsRefusal, inviteRefusal, SIGNUP_CLOSED_MESSAGE, type InviteState, type SignupMode } from "./signup.js";
// Captures: why a signature check failed and what the sender was answered, in the server's words.
export { isSignatureReason, SIGNATURE_REASONS, signatureReasonText, type SignatureReason } from "./ingress/verification/reasons.js";
export { senderAnswerText, type SenderAnswer } from "./ingress/sender-answer.js";
// HTTP status codes: their standard words and the colour they are shown in.
export { httpTone, reasonPhrase, type HttpTone } from "./http-status.js";
// Logging in: where the login and sign-up forms may send the user afterwards.
export { safeRedirectPath } from "./safe-redirect.js";
// Text cut at a length without splitting a surrogate pair (the server refuses half of one).
export { truncateText } from "./safe-text.js";
// Retries: the presets and limits the endpoint page offers, the same ones the server checks.
export {
  MAX_RETRY_ATTEMPTS,
  MAX_RETRY_DELAY_MS,
  MIN_RETRY_DELAY_MS,
  nominalRetryDelay,
  RETRY_PRESETS,
  retryPolicyProblem,
  type RetryPolicy,
  type RetryPreset,
  type RetryPresetId,
} from "./retry-policy.js";
// Activity charts: the ranges the endpoint page offers and how they are worded.
export { ACTIVITY_BUCKETS, ACTIVITY_RANGE_WORDS, ACTIVITY_RANGES, isActivityRange, type ActivityRange } from "./activity.js";
// Teams: the roles, weakest first, and the rule the server checks them by (the dashboard hides what a role cannot do).
export { isRole, ROLES, roleAllows, roleRank, rolesUpTo, withArticle, type Role } from "./roles.js";
// The audit log: its actions and actor kinds, for the Settings → Audit log filters.
export { AUDIT_ACTIONS, AUDIT_ACTOR_TYPES, AUDIT_TARGET_TYPES, wireAuditEntry, type AuditAction, type AuditActorType, type AuditEntry } from "./audit.js";
// The circuit breaker: its position and the destination card's line, in the server's words.
export { breakerPosition, breakerReason, breakerSummary, type BreakerPosition, type BreakerState } from "./completion/breaker.js";
// Deliveries and attempts: each destination's state and where each attempt went, in the server's words.
export { DELIVERY_STATE_LABELS, DELIVERY_STATES, deliveryState, soleDelivery, summariseDeliveries, type DeliveryFacts, type DeliveryState, type DeliverySummary, type StoredDeliveryStatus } from "./delivery-state.js";
export {
  attemptDestinationLabel,
  attemptDestinationText,
  REMOVED_DESTINATION,
  replayDestination,
  type AttemptDestination,
  type LocalVia,
  type ReplayDestinationFacts,
} from "./attempt-destination.js";
