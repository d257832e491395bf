import { describePayload } from "@rehook/core";
import {
  captureBaseOf,
  deleteEvent,
  getEvent,
  listEvents,
  openEventBody,
  openEventExport,
  recordLocalReplay,
  replayEvent,
  retryEvent,
  type ExportFilter,
  type ReplayAttemptView,
} from "@rehook/services";
import type { z } from "zod";
import { sendEventBody } from "../../event-body.js";
import { sendEventExport } from "../../event-export.js";
import { eventCursor } from "../cursor.js";
import { defineRoute, type Route } from "../route.js";
import * as S from "../schemas.js";

/** A replay attempt as the public API shows it (no response body, as the spec has it). */
const publicAttempt = ({ id, status, response_status, latency_ms, destination_url, replayed_at, modified }: ReplayAttemptView) => ({
  id,
  modified,
  status,
  response_status,
  latency_ms,
  destination_url,
  replayed_at,
});

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

type FilterQuery = Pick<z.infer<typeof S.EventListQuery>, "status" | "endpoint_id" | "source" | "event_type" | "signature" | "received_after" | "received_before" | "q">;

/** The list's filter names as the use cases take them: the list, the export and the dashboard's export link share them. */
export function exportFilter(query: FilterQuery): ExportFilter {
  return {
    status: query.status,
    endpointId: query.endpoint_id,
    source: query.source,
    eventType: query.event_type,
    signature: query.signature,
    receivedAfter: query.received_after,
    receivedBefore: query.received_before,
    search: query.q,
  };
}


/** The /api/v1 routes of events. The handlers only translate: the use cases are the dashboard's. */
export const EVENT_ROUTES: Route[] = [
  defineRoute({
    method: "GET",
    path: "/events",
    operationId: "listEvents",
    summary: "List events, newest first",
    query: S.EventListQuery,
    success: { status: 200, schema: S.EventList, description: "A page of events" },
    errors: [400],
    async handle({ services, userId, query }) {
      const page = await listEvents(services, {
        userId,
        withTotal: true,
        ...exportFilter(query),
        before: query.cursor === undefined ? undefined : eventCursor.decode(query.cursor),
        limit: query.limit,
        offset: query.offset,
      });
      return {
        status: 200,
        body: {
          data: page.events.map((e) => ({ id: e.id, source: e.source, event_type: e.eventType, status: e.status, signature: e.signature, latency_ms: e.latencyMs, received_at: e.receivedAt.toISOString(), resolved_by_replay: e.resolvedByReplay })),
          meta: {
            total: page.total!.value,
            total_capped: page.total!.capped,
            limit: query.limit,
            offset: query.offset,
            next_cursor: page.nextCursor === null ? null : eventCursor.encode(page.nextCursor),
          },
        },
      };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/events/export",
    operationId: "exportEvents",
    summary: "Export every event the list's filters find, newest first, as NDJSON or HAR 1.2 (streamed, as an attachment)",
    query: S.EventExportQuery,
    success: { status: 200, schema: S.EventExport, contentType: "application/x-ndjson", description: "The export (application/x-ndjson, or application/json for har; Content-Disposition: attachment)" },
    errors: [400],
    async handle({ services, userId, query }, { res, streamBounds, onStreamDrop }) {
      // Filters are checked before the status line: a bad one is a 400, not a cut download.
      const events = openEventExport(services, { userId, filter: exportFilter(query) });
      await sendEventExport(res, events, query.format, { baseUrl: captureBaseOf(services), bounds: streamBounds, onDrop: onStreamDrop, headers: { "rehook-api-version": "v1" } });
      return undefined;
    },
  }),
  defineRoute({
    method: "GET",
    path: "/events/{id}",
    operationId: "getEvent",
    summary: "Get one event with its headers, payload (its first 256 KiB at most: see payload_truncated) and the destination's response",
    success: { status: 200, schema: S.EventDetail, description: "The event" },
    errors: [404],
    async handle({ services, userId, params }) {
      const event = await getEvent(services, { userId, eventId: params.id! });
      return {
        status: 200,
        body: {
          id: event.id,
          endpoint_id: event.endpointId,
          source: event.source,
          event_type: event.eventType,
          status: event.status,
          signature: event.signature,
          latency_ms: event.latencyMs,
          received_at: event.receivedAt.toISOString(),
          resolved_by_replay: event.resolvedByReplay,
          method: event.method,
          path: event.path,
          query: event.query,
          headers: event.headers,
          ...eventPayload(event.body, event.contentType),
          payload_truncated: event.bodyTruncated,
          size_bytes: event.sizeBytes,
          response: event.response && {
            status: event.response.status,
            headers: event.response.headers,
            ...responseBody(event.response.body),
            latency_ms: event.response.latencyMs,
          },
          replay_count: event.replayCount,
          attempts: event.attempts.map((a) => ({
            attempt: a.attempt,
            started_at: a.startedAt.toISOString(),
            latency_ms: a.latencyMs,
            response_status: a.responseStatus,
            error: a.error,
            outcome: a.outcome,
          })),
          next_attempt_at: event.nextAttemptAt?.toISOString() ?? null,
        },
      };
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/events/{id}",
    operationId: "deleteEvent",
    summary: "Delete an event with its delivery attempts and replays (permanent)",
    success: { status: 204, description: "Deleted" },
    errors: [404],
    async handle({ services, userId, params }) {
      await deleteEvent(services, { userId, eventId: params.id! });
      return { status: 204 };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/events/{id}/body",
    operationId: "getEventBody",
    summary: "Download an event's body, every byte as captured (for bodies larger than the payload preview)",
    success: { status: 200, schema: S.EventBody, contentType: "application/octet-stream", description: "The body (application/octet-stream, Content-Disposition: attachment)" },
    errors: [404],
    async handle({ services, userId, params }, { req, res, streamBounds }) {
      const download = await openEventBody(services, { userId, eventId: params.id! });
      await sendEventBody(req, res, download, { headers: { "rehook-api-version": "v1" }, bounds: streamBounds });
      return undefined;
    },
  }),
  defineRoute({
    method: "POST",
    path: "/events/{id}/replay",
    operationId: "replayEvent",
    summary: "Send a stored event again to a URL",
    body: S.ReplayRequest,
    success: { status: 200, schema: S.ReplayResponse, description: "The replay attempt (the event's own status does not change)" },
    errors: [400, 404, 413, 415, 422],
    async handle({ services, userId, params, body }) {
      const attempt = await replayEvent(services, { userId, eventId: params.id!, environment: "custom", customUrl: body.destination_url, overrides: body.overrides });
      return { status: 200, body: publicAttempt(attempt) };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/events/{id}/retry",
    operationId: "retryEvent",
    summary: "Retry now: a new attempt of a pending or failed event itself (not a replay), due at once; queued but not sent while its endpoint is paused",
    success: { status: 202, schema: S.RetryEventResponse, description: "The event is pending, due now" },
    errors: [404, 409, 422],
    async handle({ services, userId, params }) {
      const queued = await retryEvent(services, { userId, eventId: params.id! });
      return {
        status: 202,
        body: { id: queued.id, status: queued.status, next_attempt_at: queued.nextAttemptAt.toISOString(), forwarding_paused: queued.forwardingPaused, message: queued.message },
      };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/events/{id}/local-replays",
    operationId: "recordLocalReplay",
    summary: "Record a replay made from the caller's machine (rehook listen) with its result",
    body: S.LocalReplayRequest,
    success: { status: 201, schema: S.LocalReplayResponse, description: "The recorded attempt (environment local)" },
    errors: [400, 404, 413, 415],
    async handle({ services, userId, params, body }) {
      const attempt = await recordLocalReplay(services, {
        userId,
        eventId: params.id!,
        result: { status: body.status, body: body.body ?? null, latencyMs: body.latency_ms, error: body.error ?? null },
      });
      return { status: 201, body: publicAttempt(attempt) };
    },
  }),
];
