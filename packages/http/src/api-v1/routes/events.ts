import {
  captureBaseOf,
  deliveryContracts,
  eventContracts,
  replayContracts,
  openEventBody,
  openEventExport,
  type ExportFilter,
} from "@rehook/services";
import { sendEventBody } from "../../event-body.js";
import { sendEventExport } from "../../event-export.js";
import { HAR_1_2_SCHEMA } from "../../export/har-schema.js";
import { HAR_EXPORT_EXAMPLE } from "../openapi-example.js";
import { contractRoute, fromWire } from "../contract-route.js";
import { EVENT_LIST_WIRE } from "../cursor.js";
import { restEventDetail, restEventList, restRetryQueued } from "../presenters/event.js";
import { defineRoute, type Route } from "../route.js";
import * as S from "../schemas.js";
import { restDeliveryResolution, restReplayAttempt, restReplayOutcome } from "../presenters/replay-attempt.js";

/** The list's filters (wire names) as the use cases take them: the export and the dashboard's export link read the list's. */
export function exportFilter(query: Record<string, unknown>): ExportFilter {
  const { before: _cursor, limit: _limit, offset: _offset, withTotal: _total, ...filter } = fromWire(eventContracts.listEventsContract, query);
  return filter as ExportFilter;
}


/** The /api/v1 routes of events: derived from their contracts, or (streams) translating to the dashboard's use cases. */
export const EVENT_ROUTES: Route[] = [
  contractRoute(eventContracts.listEventsContract, {
    description: "A page of events",
    schema: S.EventList,
    errors: [400],
    wire: EVENT_LIST_WIRE,
    present: restEventList,
  }),
  defineRoute({
    method: "GET",
    path: "/events/export",
    operationId: "exportEvents",
    summary: "Export every event the list's filters find, newest first, as NDJSON or HAR 1.2 (streamed, as an attachment)",
    query: S.EventExportQuery,
    success: {
      status: 200,
      schema: S.EventExport,
      contentType: "application/x-ndjson",
      alternatives: { "application/json": { schema: HAR_1_2_SCHEMA, example: HAR_EXPORT_EXAMPLE } },
      headers: ["Content-Disposition"],
      description: "The export: application/x-ndjson, or for format=har a HAR 1.2 document (application/json); an attachment",
    },
    errors: [400],
    async handle({ services, actor, query }, { res, streamBounds, onStreamDrop }) {
      // Filters are checked before the status line: a bad one is a 400, not a cut download.
      const events = openEventExport(services, { teamId: actor.teamId, by: actor, filter: exportFilter(query) });
      await sendEventExport(res, events, query.format, { baseUrl: captureBaseOf(services), bounds: streamBounds, onDrop: onStreamDrop, headers: { "rehook-api-version": "v1" } });
      return undefined;
    },
  }),
  contractRoute(eventContracts.getEventContract, { description: "The event", schema: S.EventDetail, errors: [404], present: restEventDetail }),
  contractRoute(eventContracts.deleteEventContract, { description: "Deleted", errors: [404] }),
  defineRoute({
    method: "GET",
    path: "/events/{id}/body",
    operationId: "getEventBody",
    summary: "Download an event's body, every byte as captured (for bodies larger than the payload preview)",
    success: { status: 200, schema: S.EventBody, contentType: "application/octet-stream", headers: ["Content-Disposition"], description: "The body (application/octet-stream), as an attachment" },
    errors: [404],
    async handle({ services, actor, params }, { req, res, streamBounds }) {
      const download = await openEventBody(services, { teamId: actor.teamId, eventId: params.id! });
      await sendEventBody(req, res, download, { headers: { "rehook-api-version": "v1" }, bounds: streamBounds });
      return undefined;
    },
  }),
  contractRoute(replayContracts.replayEventContract, {
    description:
      "The replay attempt; for target matched or failed, {attempts, event_resolved} with one attempt per destination. The event's own status does not change; a delivered attempt to a destination resolves its failed delivery",
    schema: S.ReplayAnswer,
    errors: [400, 404, 413, 415, 422],
    // The API's names and documentation of the target fields and of the edits' shape.
    wire: {
      customUrl: { schema: S.ReplayRequest.shape.destination_url },
      destinationId: { schema: S.ReplayRequest.shape.destination_id },
      environment: { schema: S.ReplayRequest.shape.target },
      overrides: { schema: S.ReplayRequest.shape.overrides },
    },
    present: restReplayOutcome,
    // Its fields go together only in some ways (a URL with custom, a destination with original or staging): the spec's request.
    bodyExample: { destination_url: "https://example.com/hooks" },
  }),
  contractRoute(deliveryContracts.resolveDeliveryContract, {
    description: "The delivery, resolved (its status stays failed)",
    schema: S.ResolveDeliveryResponse,
    errors: [400, 404, 409],
    wire: { note: { schema: S.ResolveDeliveryRequest.shape.note } },
    present: restDeliveryResolution,
  }),
  contractRoute(eventContracts.retryEventContract, {
    description: "The event is pending, due now",
    schema: S.RetryEventResponse,
    errors: [404, 409, 422],
    present: restRetryQueued,
  }),
  contractRoute(replayContracts.recordLocalContract, {
    description: "The recorded attempt (environment local)",
    schema: S.LocalReplayResponse,
    errors: [400, 404, 409, 413, 415],
    // The API's documented limits and sentences for what the caller's machine reports.
    wire: {
      status: { schema: S.LocalReplayRequest.shape.status },
      latencyMs: { schema: S.LocalReplayRequest.shape.latency_ms },
      body: { schema: S.LocalReplayRequest.shape.body },
      error: { schema: S.LocalReplayRequest.shape.error },
      attemptId: { schema: S.LocalReplayRequest.shape.attempt_id },
      via: { schema: S.LocalReplayRequest.shape.via },
      localUrl: { schema: S.LocalReplayRequest.shape.local_url },
    },
    present: restReplayAttempt,
  }),
];
