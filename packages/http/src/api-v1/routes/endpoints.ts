import { roleAllows } from "@rehook/core";
import { endpointContracts as endpoints, openEndpointEventStream, replayContracts } from "@rehook/services";
import { STREAM_RETRY_MS } from "../../open-streams.js";
import { SseWriter } from "../../sse-writer.js";
import { contractRoute } from "../contract-route.js";
import { endpointWireFields } from "../endpoint-input.js";
import { restEndpoint, restEndpointList, restRetryFailed } from "../presenters/endpoint.js";
import { defineRoute, parseWith, type Route } from "../route.js";
import * as S from "../schemas.js";

/** The /api/v1 routes of endpoints: the event stream, then the ones derived from the endpoint contracts. */
export const ENDPOINT_ROUTES: Route[] = [
  defineRoute({
    method: "GET",
    path: "/endpoints/{id}/stream",
    operationId: "streamEndpointEvents",
    summary:
      "Server-sent events: each new event of the endpoint (event: webhook, id: the event id); resume with Last-Event-ID or ?after=. With ?local_replays=true, the dashboard's Local replays of the key's member come too (event: replay, no id, the stored event with attempt_id)",
    query: S.StreamQuery,
    streams: true,
    success: { status: 200, schema: S.StreamedEvent, description: "An event stream (text/event-stream); each message's data is one event" },
    errors: [400, 404, 503],
    async handle({ services, actor, params, query }, { req, res, streamBounds, onStreamDrop }) {
      const lastEventId = typeof req.headers["last-event-id"] === "string" ? req.headers["last-event-id"] : undefined;
      const after = query.after ?? (lastEventId && parseWith(S.StreamQuery, { after: lastEventId }, "Last-Event-ID").after);
      const stop = new AbortController();
      res.once("close", () => stop.abort());
      // Local replays go only to a listener that may record them (replays.recordLocal's role).
      const localReplays = query.local_replays === true && roleAllows(actor.role, replayContracts.recordLocalContract.role);
      // 404 and 429 (too many open streams) come before any stream is opened.
      const events = await openEndpointEventStream(services, {
        teamId: actor.teamId,
        userId: actor.userId,
        keyId: actor.keyId,
        endpointId: params.id!,
        after: after || null,
        localReplays,
        signal: stop.signal,
      });
      res.writeHead(200, { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache", "x-accel-buffering": "no", "rehook-api-version": "v1" });
      // The next event is read only after the socket took the last one: a client that does not
      // read stops the reading (and is dropped past the bounds) instead of filling this process.
      const writer = new SseWriter(res, streamBounds, onStreamDrop);
      await writer.send([`retry: ${STREAM_RETRY_MS}\n\n`]);
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
          const head = JSON.stringify(event.localReplay ? { attempt_id: event.localReplay.attemptId, ...fields } : fields);
          // A Local replay carries no id: Last-Event-ID must keep naming the last captured event.
          const kind = event.localReplay ? "event: replay" : `id: ${event.id}\nevent: webhook`;
          const sent = await writer.send([`${kind}\ndata: ${head.slice(0, -1)},"body_base64":"`, { base64: body }, '"}\n\n']);
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
  contractRoute(endpoints.listEndpointsContract, { description: "A page of endpoints, oldest first", schema: S.EndpointList, errors: [400], present: restEndpointList }),
  contractRoute(endpoints.createEndpointContract, {
    description: "The new endpoint",
    schema: S.Endpoint,
    errors: [400, 413, 415],
    wire: endpointWireFields(S.EndpointCreate),
    present: restEndpoint,
  }),
  contractRoute(endpoints.getEndpointContract, { description: "The endpoint", schema: S.Endpoint, errors: [404], present: restEndpoint }),
  contractRoute(endpoints.updateEndpointContract, {
    description: "The endpoint after the change",
    schema: S.Endpoint,
    errors: [400, 404, 413, 415],
    wire: endpointWireFields(S.EndpointPatch),
    present: restEndpoint,
  }),
  contractRoute(endpoints.resumeEndpointContract, { description: "The endpoint, forwarding again", schema: S.Endpoint, errors: [404], present: restEndpoint }),
  contractRoute(endpoints.retryFailedContract, {
    description: "How many failed events are pending again, due now",
    schema: S.RetryFailedResponse,
    errors: [404],
    present: restRetryFailed,
  }),
  contractRoute(endpoints.deleteEndpointContract, { description: "Deleted", errors: [404] }),
];
