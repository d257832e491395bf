import { describePayload, ingressSettingsFromWire, issueSentence, UserError } from "@rehook/core";
import {
  captureBaseOf,
  createEndpoint,
  deleteEndpoint,
  deleteEvent,
  getEndpoint,
  openEndpointEventStream,
  openEventBody,
  openEventExport,
  getEvent,
  listEndpoints,
  recordLocalReplay,
  listEvents,
  replayEvent,
  resumeEndpoint,
  retryEvent,
  retryFailedEvents,
  updateEndpoint,
  type EndpointView,
  type ExportFilter,
  type ReplayAttemptView,
  type Services,
} from "@rehook/services";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { z } from "zod";
import { sendEventBody } from "../event-body.js";
import { sendEventExport } from "../event-export.js";
import { SseWriter } from "../sse-writer.js";
import type { StreamBounds } from "../stream-backpressure.js";
import { eventCursor } from "./cursor.js";
import * as S from "./schemas.js";

/** A request as the API handler hands it to a route: authenticated, body read, nothing validated. */
export interface ApiRequest {
  services: Services;
  userId: string;
  params: Record<string, string>;
  query: URLSearchParams;
  body: unknown;
}

type Parsed<T> = T extends z.ZodType ? z.infer<T> : undefined;

/** What a route's own handler gets: query and body already validated against its schemas. */
export interface ValidRequest<Q, B> {
  services: Services;
  userId: string;
  params: Record<string, string>;
  query: Parsed<Q>;
  body: Parsed<B>;
}

/** The request and response themselves, for routes that stream their answer. */
export interface RawExchange {
  req: IncomingMessage;
  res: ServerResponse;
  /** When a client that does not read is dropped (see stream-backpressure). */
  streamBounds: Partial<StreamBounds>;
  /** Told why a streaming client was dropped (for the log). */
  onStreamDrop(reason: string): void;
}

export interface ApiAnswer {
  status: number;
  body?: unknown;
}

export interface Route {
  method: "GET" | "POST" | "PATCH" | "DELETE";
  /** OpenAPI-style path under /api/v1, e.g. /events/{id}. */
  path: string;
  operationId: string;
  summary: string;
  query?: z.ZodType;
  body?: z.ZodType;
  /** The success status and its schema (none for 204); its content type is JSON unless given (or an event stream). */
  success: { status: number; schema?: z.ZodType; description: string; contentType?: string };
  /** The error statuses this route can answer besides 401 and 429. */
  errors: number[];
  /** Server-sent events instead of one JSON answer: `success.schema` is each message's data. */
  streams?: boolean;
  handle(request: ApiRequest, raw: RawExchange): Promise<ApiAnswer | undefined>;
}

type RouteSpec<Q extends z.ZodType | undefined, B extends z.ZodType | undefined> = Omit<Route, "query" | "body" | "handle"> & {
  query?: Q;
  body?: B;
  handle(request: ValidRequest<Q, B>, raw: RawExchange): Promise<ApiAnswer | undefined>;
};

/** A route whose query and body are validated (400 with the issues) before its handler runs. */
function defineRoute<Q extends z.ZodType | undefined = undefined, B extends z.ZodType | undefined = undefined>(spec: RouteSpec<Q, B>): Route {
  return {
    ...spec,
    handle: (request, raw) =>
      spec.handle(
        {
          ...request,
          query: (spec.query ? parseWith(spec.query, Object.fromEntries(request.query), "query") : undefined) as Parsed<Q>,
          body: (spec.body ? parseWith(spec.body, request.body, "body") : undefined) as Parsed<B>,
        },
        raw,
      ),
  };
}

/** Validates with a contract schema; a failure is a 400 with the issues as details. */
export function parseWith<T extends z.ZodType>(schema: T, input: unknown, what: string): z.infer<T> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new UserError("validation_failed", `The request ${what} is not valid. ${issueSentence(parsed.error.issues[0]!)}`, parsed.error.issues);
}

/** The endpoint fields the public API shows: a list, so a field added to the view stays private until named here. */
const PUBLIC_ENDPOINT_FIELDS = [
  "id",
  "name",
  "slug",
  "webhook_url",
  "destination_url",
  "health",
  "keep_proxy_headers",
  "retry_policy",
  "pause_after_failures",
  "forwarding_paused",
  "paused_reason",
  "paused_at",
  "retention_days",
  "kept_for_days",
  "response",
  "handshake",
  "verification",
  "created_at",
] as const satisfies ReadonlyArray<keyof EndpointView>;

const publicEndpoint = (view: EndpointView) =>
  Object.fromEntries(PUBLIC_ENDPOINT_FIELDS.map((field) => [field, view[field]])) as Pick<EndpointView, (typeof PUBLIC_ENDPOINT_FIELDS)[number]>;

/** The delivery settings of a create or patch body, as the use cases take them. */
function deliverySettings(body: {
  retry_policy?: { max_attempts: number; initial_delay_ms: number; max_delay_ms: number } | null;
  pause_after_failures?: number | null;
  retention_days?: number | null;
}) {
  return {
    ...(body.retry_policy !== undefined
      ? { retryPolicy: body.retry_policy && { maxAttempts: body.retry_policy.max_attempts, initialDelayMs: body.retry_policy.initial_delay_ms, maxDelayMs: body.retry_policy.max_delay_ms } }
      : {}),
    ...(body.pause_after_failures !== undefined ? { pauseAfterFailures: body.pause_after_failures } : {}),
    ...(body.retention_days !== undefined ? { retentionDays: body.retention_days } : {}),
  };
}

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

/** Every /api/v1 route. The handlers only translate: the use cases are the dashboard's. */
export const ROUTES: Route[] = [
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
  defineRoute({
    method: "GET",
    path: "/endpoints/{id}/stream",
    operationId: "streamEndpointEvents",
    summary: "Server-sent events: each new event of the endpoint (event: webhook, id: the event id); resume with Last-Event-ID or ?after=",
    query: S.StreamQuery,
    streams: true,
    success: { status: 200, schema: S.StreamedEvent, description: "An event stream (text/event-stream); each message's data is one event" },
    errors: [400, 404],
    async handle({ services, userId, params, query }, { req, res, streamBounds, onStreamDrop }) {
      const lastEventId = typeof req.headers["last-event-id"] === "string" ? req.headers["last-event-id"] : undefined;
      const after = query.after ?? (lastEventId && parseWith(S.StreamQuery, { after: lastEventId }, "Last-Event-ID").after);
      const stop = new AbortController();
      res.once("close", () => stop.abort());
      // 404 and 429 (too many open streams) come before any stream is opened.
      const events = await openEndpointEventStream(services, { userId, endpointId: params.id!, after: after || null, signal: stop.signal });
      res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "x-accel-buffering": "no", "rehook-api-version": "v1" });
      // The next event is read only after the socket took the last one: a client that does not
      // read stops the reading (and is dropped past the bounds) instead of filling this process.
      const writer = new SseWriter(res, streamBounds, onStreamDrop);
      await writer.send(["retry: 2000\n\n"]);
      const ping = setInterval(() => writer.ping(), 15_000);
      try {
        for await (const event of events) {
          const { body, ...fields } = {
            id: event.id,
            endpoint_id: event.endpointId,
            method: event.method,
            path: event.path,
            query: event.query,
            headers: event.headers,
            source: event.source,
            event_type: event.eventType,
            received_at: event.receivedAt.toISOString(),
            body: event.body,
          };
          // The body's base64 is written a slice at a time, never built whole (10 MiB would be 13 MiB of text, twice).
          const head = JSON.stringify(fields);
          const sent = await writer.send([`id: ${event.id}\nevent: webhook\ndata: ${head.slice(0, -1)},"body_base64":"`, { base64: body }, '"}\n\n']);
          if (!sent) break;
        }
      } finally {
        clearInterval(ping);
        stop.abort();
        void events.return(undefined);
        res.end();
      }
      return undefined;
    },
  }),
  defineRoute({
    method: "GET",
    path: "/endpoints",
    operationId: "listEndpoints",
    summary: "List endpoints",
    query: S.EndpointListQuery,
    success: { status: 200, schema: S.EndpointList, description: "A page of endpoints, oldest first" },
    errors: [400],
    async handle({ services, userId, query }) {
      const all = await listEndpoints(services, { userId });
      const { limit, offset } = query;
      const page = all.slice(offset, offset + limit).map((item) => ({ ...publicEndpoint(item), event_count: item.event_count, last_event_at: item.last_event_at }));
      return { status: 200, body: { data: page, meta: { total: all.length, limit, offset } } };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/endpoints",
    operationId: "createEndpoint",
    summary: "Create an endpoint",
    body: S.EndpointCreate,
    success: { status: 201, schema: S.Endpoint, description: "The new endpoint" },
    errors: [400, 413, 415],
    async handle({ services, userId, body }) {
      const endpoint = await createEndpoint(services, {
        userId,
        name: body.name,
        destinationUrl: body.destination_url ?? null,
        keepProxyHeaders: body.keep_proxy_headers ?? false,
        ...deliverySettings(body),
        ...ingressSettingsFromWire(body),
      });
      return { status: 201, body: publicEndpoint(endpoint) };
    },
  }),
  defineRoute({
    method: "GET",
    path: "/endpoints/{id}",
    operationId: "getEndpoint",
    summary: "One endpoint with its settings and delivery health",
    success: { status: 200, schema: S.Endpoint, description: "The endpoint" },
    errors: [404],
    async handle({ services, userId, params }) {
      return { status: 200, body: publicEndpoint(await getEndpoint(services, { userId, endpoint: { id: params.id! } })) };
    },
  }),
  defineRoute({
    method: "PATCH",
    path: "/endpoints/{id}",
    operationId: "updateEndpoint",
    summary: "Rename an endpoint, change its destination, whether it keeps proxy headers, its retry policy, circuit breaker, custom response, handshake or signature check",
    body: S.EndpointPatch,
    success: { status: 200, schema: S.Endpoint, description: "The endpoint after the change" },
    errors: [400, 404, 413, 415],
    async handle({ services, userId, params, body }) {
      const changes = {
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.destination_url !== undefined ? { destinationUrl: body.destination_url } : {}),
        ...(body.keep_proxy_headers !== undefined ? { keepProxyHeaders: body.keep_proxy_headers } : {}),
        ...deliverySettings(body),
        ...ingressSettingsFromWire(body),
      };
      const endpoint = Object.keys(changes).length === 0
        ? await getEndpoint(services, { userId, endpoint: { id: params.id! } })
        : await updateEndpoint(services, { userId, endpoint: { id: params.id! }, changes });
      return { status: 200, body: publicEndpoint(endpoint) };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/endpoints/{id}/resume",
    operationId: "resumeEndpoint",
    summary: "Resume forwarding after the circuit breaker paused it: the failure count restarts and waiting events (scheduled retries made due now) are sent, oldest first",
    success: { status: 200, schema: S.Endpoint, description: "The endpoint, forwarding again" },
    errors: [404],
    async handle({ services, userId, params }) {
      await resumeEndpoint(services, { userId, endpointId: params.id! });
      return { status: 200, body: publicEndpoint(await getEndpoint(services, { userId, endpoint: { id: params.id! } })) };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/endpoints/{id}/retry-failed",
    operationId: "retryFailedEvents",
    summary: "Retry every failed event of the endpoint now (each gets a new attempt); queued but not sent while the endpoint is paused",
    success: { status: 202, schema: S.RetryFailedResponse, description: "How many failed events are pending again, due now" },
    errors: [404],
    async handle({ services, userId, params }) {
      const result = await retryFailedEvents(services, { userId, endpointId: params.id! });
      return { status: 202, body: { count: result.count, forwarding_paused: result.forwardingPaused, message: result.message } };
    },
  }),
  defineRoute({
    method: "DELETE",
    path: "/endpoints/{id}",
    operationId: "deleteEndpoint",
    summary: "Delete an endpoint and all its events (permanent)",
    success: { status: 204, description: "Deleted" },
    errors: [404],
    async handle({ services, userId, params }) {
      await deleteEndpoint(services, { userId, endpoint: { id: params.id! } });
      return { status: 204 };
    },
  }),
];
