import type { ReplayAttemptView } from "@rehook/services";

/** A replay attempt as the public API answers it (no response body, as the spec has it). */
export function restReplayAttempt(attempt: ReplayAttemptView) {
  return {
    id: attempt.id,
    modified: attempt.modified,
    status: attempt.status,
    response_status: attempt.responseStatus,
    latency_ms: attempt.latencyMs,
    destination_url: attempt.destinationUrl,
    replayed_at: attempt.replayedAt.toISOString(),
  };
}

/** A replay attempt as the session route POST /api/events/{id}/replay answers it: with the response body. */
export function sessionReplayAttempt(attempt: ReplayAttemptView) {
  return {
    id: attempt.id,
    status: attempt.status,
    response_status: attempt.responseStatus,
    response_body: attempt.responseBody,
    latency_ms: attempt.latencyMs,
    destination_url: attempt.destinationUrl,
    replayed_at: attempt.replayedAt.toISOString(),
    modified: attempt.modified,
  };
}
