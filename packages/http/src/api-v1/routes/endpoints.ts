import { ingressSettingsFromWire } from "@rehook/core";
import {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  openEndpointEventStream,
  resumeEndpoint,
  retryFailedEvents,
  updateEndpoint,
  type EndpointView,
} from "@rehook/services";
import { SseWriter } from "../../sse-writer.js";
import { defineRoute, parseWith, type Route } from "../route.js";
import * as S from "../schemas.js";

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


/** The /api/v1 routes of endpoints. The handlers only translate: the use cases are the dashboard's. */
export const ENDPOINT_ROUTES: Route[] = [
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
