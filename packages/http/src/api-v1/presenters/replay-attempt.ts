import { FAN_OUT_TARGETS } from "@rehook/core";
import type { DeliveryResolutionView, ReplayAttemptView, ReplayOutcome } from "@rehook/services";

/** A replay attempt as the public API answers it (no response body, as the spec has it). */
export function restReplayAttempt(attempt: ReplayAttemptView) {
  return {
    id: attempt.id,
    modified: attempt.modified,
    status: attempt.status,
    response_status: attempt.responseStatus,
    latency_ms: attempt.latencyMs,
    destination_url: attempt.destinationUrl,
    destination_id: attempt.destinationId,
    replayed_at: attempt.replayedAt.toISOString(),
  };
}

/**
 * What a replay request answers: its one attempt (the spec's shape), or for a target that
 * fans out (matched, failed) every attempt and whether the event is resolved now. The shape
 * follows the request, never the number of attempts it happened to make.
 */
function replayAnswer<Attempt>(outcome: ReplayOutcome, present: (attempt: ReplayAttemptView) => Attempt) {
  if (FAN_OUT_TARGETS.includes(outcome.target)) return { attempts: outcome.attempts.map(present), event_resolved: outcome.eventResolved };
  return present(outcome.attempts[0]!);
}

/** POST /api/v1/events/{id}/replay's answer. */
export const restReplayOutcome = (outcome: ReplayOutcome) => replayAnswer(outcome, restReplayAttempt);

/** A replay attempt as the session route POST /api/events/{id}/replay answers it: with the response body. */
export function sessionReplayAttempt(attempt: ReplayAttemptView) {
  return {
    id: attempt.id,
    status: attempt.status,
    response_status: attempt.responseStatus,
    response_body: attempt.responseBody,
    latency_ms: attempt.latencyMs,
    destination_url: attempt.destinationUrl,
    destination_id: attempt.destinationId,
    replayed_at: attempt.replayedAt.toISOString(),
    modified: attempt.modified,
  };
}

/** The session route's answer: as the API's, with each attempt's response body. */
export const sessionReplayOutcome = (outcome: ReplayOutcome) => replayAnswer(outcome, sessionReplayAttempt);

/** A delivery marked resolved, as POST /api/v1/events/{id}/deliveries/{destination_id}/resolve answers it. */
export function restDeliveryResolution(resolution: DeliveryResolutionView) {
  return {
    event_id: resolution.eventId,
    destination_id: resolution.destinationId,
    resolved_at: resolution.resolvedAt.toISOString(),
    user_id: resolution.resolvedByUserId,
    note: resolution.note,
    event_resolved: resolution.eventResolved,
  };
}
