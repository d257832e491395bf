import { describePayload, soleDelivery } from "@rehook/core";
import type { EventSummary, EventView, RetryQueued } from "@rehook/services";
import { eventCursor } from "../cursor.js";

/** The body as the API's payload: the parsed value for JSON, text for UTF-8, base64 for the rest. */
function eventPayload(body: Uint8Array, contentType: string | null): { payload: unknown; payload_encoding: "json" | "utf8" | "base64" } {
  const view = describePayload(body, contentType);
  if (view.kind === "json") return { payload: view.value, payload_encoding: "json" };
  if (view.kind === "text") return { payload: view.text, payload_encoding: "utf8" };
  return { payload: Buffer.from(body).toString("base64"), payload_encoding: "base64" };
}

function responseBody(body: Uint8Array | null): { body: string | null; body_encoding: "utf8" | "base64" } {
  if (!body) return { body: null, body_encoding: "utf8" };
  const view = describePayload(body, null);
  return view.kind === "binary" ? { body: Buffer.from(body).toString("base64"), body_encoding: "base64" } : { body: Buffer.from(body).toString("utf8"), body_encoding: "utf8" };
}

/** A listed event as the API shows it: where it came and how, so scripts need no second call per event. */
export function restEventSummary(
  event: Pick<
    EventSummary,
    "id" | "endpointId" | "method" | "path" | "source" | "eventType" | "status" | "signature" | "signatureReason" | "latencyMs" | "receivedAt" | "resolved" | "duplicateOf"
  >,
) {
  return {
    id: event.id,
    endpoint_id: event.endpointId,
    method: event.method,
    path: event.path,
    source: event.source,
    event_type: event.eventType,
    status: event.status,
    duplicate_of: event.duplicateOf,
    signature: event.signature,
    signature_reason: event.signatureReason,
    latency_ms: event.latencyMs,
    received_at: event.receivedAt.toISOString(),
    resolved: event.resolved,
    // The preview's first name for it, kept as an alias.
    resolved_by_replay: event.resolved,
  };
}

/** A listed event with each destination's state (the same words as the event's deliveries[]). */
function restListedEvent(event: EventSummary) {
  return {
    ...restEventSummary(event),
    deliveries: event.deliveries.map((delivery) => ({
      destination_id: delivery.destinationId,
      name: delivery.name,
      status: delivery.status,
      next_attempt_at: delivery.nextAttemptAt?.toISOString() ?? null,
    })),
  };
}

/** A page of events with the paging the request asked for. */
export function restEventList(page: { events: EventSummary[]; nextCursor: string | null; total?: { value: number; capped: boolean } }, input: { limit?: unknown; offset?: unknown }) {
  return {
    data: page.events.map(restListedEvent),
    meta: {
      total: page.total!.value,
      total_capped: page.total!.capped,
      limit: input.limit,
      offset: input.offset,
      next_cursor: page.nextCursor === null ? null : eventCursor.encode(page.nextCursor),
    },
  };
}

type Attempt = EventView["attempts"][number];

const restAttempt = (a: Attempt) => ({
  attempt: a.attempt,
  started_at: a.startedAt.toISOString(),
  latency_ms: a.latencyMs,
  response_status: a.responseStatus,
  error: a.error,
  outcome: a.outcome,
});

type Resolution = NonNullable<EventView["deliveries"][number]["resolution"]>;

/** How a failed delivery was resolved: by a replay that delivered, or by a member with a note. */
const restResolution = (resolution: Resolution) => ({
  resolved_at: resolution.at.toISOString(),
  by: resolution.replayId ? ("replay" as const) : ("member" as const),
  replay_id: resolution.replayId,
  user_id: resolution.userId,
  user_email: resolution.userEmail,
  note: resolution.note,
});

/** One event as GET /events/{id} shows it: the payload preview, each delivery with its attempts, and the sole delivery's answer. */
export function restEventDetail(event: EventView) {
  // The top-level response and attempts are aliases of the event's sole delivery (core's rule); with several, each is in deliveries[].
  const sole = soleDelivery(event.deliveries);
  // An attempt's destination is resolved by the query that read it (pre-routing ones included): no rule here.
  const attemptsOf = (destinationId: string | null) => event.attempts.filter((a) => a.destinationId === destinationId).map(restAttempt);
  return {
    ...restEventSummary(event),
    query: event.query,
    headers: event.headers,
    ...eventPayload(event.body, event.contentType),
    payload_truncated: event.bodyTruncated,
    size_bytes: event.sizeBytes,
    response: sole &&
      event.response && {
      status: event.response.status,
      headers: event.response.headers,
      ...responseBody(event.response.body),
      latency_ms: event.response.latencyMs,
    },
    replay_count: event.replayCount,
    attempts: sole ? attemptsOf(sole.destinationId) : [],
    next_attempt_at: event.nextAttemptAt?.toISOString() ?? null,
    deliveries: event.deliveries.map((delivery) => ({
      destination_id: delivery.destinationId,
      name: delivery.name,
      url: delivery.url,
      status: delivery.status,
      attempts: delivery.status === "filtered" ? [] : attemptsOf(delivery.destinationId),
      next_attempt_at: delivery.nextAttemptAt?.toISOString() ?? null,
      resolution: delivery.resolution && restResolution(delivery.resolution),
      filter_reason: delivery.filterReason,
    })),
    sender_response: event.senderResponse && { status: event.senderResponse.status, delay_ms: event.senderResponse.delayMs },
  };
}

/** A retry queued, as POST /events/{id}/retry answers it. */
export function restRetryQueued(queued: RetryQueued) {
  return { id: queued.id, status: queued.status, next_attempt_at: queued.nextAttemptAt.toISOString(), forwarding_paused: queued.forwardingPaused, message: queued.message };
}
