export { PUBLIC_ENDPOINT_FIELDS, restEndpoint, restEndpointListItem, wireEndpoint, type RestEndpoint, type WireEndpoint } from "./endpoint.js";
export { restDeliveryResolution, restReplayAttempt, restReplayOutcome, sessionReplayAttempt, sessionReplayOutcome } from "./replay-attempt.js";
export { wireUser } from "./user.js";
export { wireInvite } from "./invite.js";
export { wireApiKey } from "./api-key.js";
export { restDestination, restDestinationList } from "./destination.js";
export { restAuditLog } from "./audit-entry.js";
export { restAlertRule, restAlertRuleList } from "./alert-rule.js";
