import { ACTIVITY_RANGES } from "@rehook/core";
import { z } from "zod";
import { compareResponses, listEventResponses, type ResponseComparison, type ResponseOption } from "../compare-responses.js";
import { eventActivity, type ActivityView } from "../event-activity.js";
import { deleteEvent, getEvent, getEventAttempt, listEvents } from "../events.js";
import { retryEvent } from "../retries.js";
import { deliveryAttemptSummary, eventIdInput, eventPage, eventView, listEventsInput } from "../schemas/events.js";
import { defineContract } from "./contract.js";

// Outputs computed by core (activity series, diffs) are declared by their TypeScript types:
// they are built in one place and never parsed from outside.

export const listEventsContract = defineContract({
  name: "events.list",
  summary: "List events, newest first",
  kind: "query",
  role: "viewer",
  input: listEventsInput,
  output: eventPage,
  errors: [],
  rest: {
    method: "GET",
    path: "/events",
    status: 200,
    operationId: "listEvents",
    summary: "List events, newest first",
    names: { search: "q", before: "cursor" },
    defaults: { limit: 20 },
    fixed: { withTotal: true },
    omit: ["unresolved"],
  },
  run: (services, actor, input) => listEvents(services, { teamId: actor.teamId, ...input }),
});

export const getEventContract = defineContract({
  name: "events.get",
  summary: "One event with its headers, the start of its body, the destination's answer and every delivery attempt",
  kind: "query",
  role: "viewer",
  input: eventIdInput,
  output: eventView,
  errors: ["not_found"],
  rest: {
    method: "GET",
    path: "/events/{id}",
    status: 200,
    operationId: "getEvent",
    summary: "Get one event with its headers, payload (its first 256 KiB at most: see payload_truncated) and the destination's response",
    params: { id: "id" },
  },
  run: (services, actor, input) => getEvent(services, { teamId: actor.teamId, eventId: input.id }),
});

export const deleteEventContract = defineContract({
  name: "events.delete",
  summary: "Deletes the event with its attempts and replays",
  kind: "mutation",
  role: "developer",
  input: eventIdInput,
  output: z.null(),
  errors: ["not_found"],
  rest: {
    method: "DELETE",
    path: "/events/{id}",
    status: 204,
    operationId: "deleteEvent",
    summary: "Delete an event with its delivery attempts and replays (permanent)",
    params: { id: "id" },
  },
  run: async (services, actor, input) => {
    await deleteEvent(services, { teamId: actor.teamId, by: actor, eventId: input.id });
    return null;
  },
});

export const retryQueued = z.object({
  id: z.string(),
  status: z.literal("pending"),
  nextAttemptAt: z.date(),
  /** The endpoint's breaker holds forwarding: queued, sent once it is resumed. */
  forwardingPaused: z.boolean(),
  message: z.string(),
});

export const retryEventContract = defineContract({
  name: "events.retry",
  summary: "Retry now: a new attempt of the event itself, due at once (queued, not sent, while its endpoint is paused)",
  kind: "mutation",
  role: "developer",
  input: eventIdInput,
  output: retryQueued,
  errors: ["not_found", "conflict", "unprocessable"],
  rest: {
    method: "POST",
    path: "/events/{id}/retry",
    status: 202,
    operationId: "retryEvent",
    summary: "Retry now: a new attempt of a pending or failed event itself (not a replay), due at once; queued but not sent while its endpoint is paused",
    params: { id: "id" },
  },
  run: (services, actor, input) => retryEvent(services, { teamId: actor.teamId, by: actor, eventId: input.id }),
});

export const eventAttemptContract = defineContract({
  name: "events.attempt",
  summary: "One delivery attempt with the destination's headers and the start of its body (the attempt timeline)",
  kind: "query",
  role: "viewer",
  // Each destination numbers its attempts from 1: destinationId names whose (left out: the latest with that number).
  input: z.object({ eventId: z.string(), attempt: z.number().int().min(1).max(2_147_483_647), destinationId: z.string().optional() }),
  output: deliveryAttemptSummary.extend({
    responseHeaders: z.array(z.tuple([z.string(), z.string()])).nullable(),
    responseBody: z.instanceof(Uint8Array).nullable(),
    bodyTruncated: z.boolean(),
  }),
  errors: ["not_found"],
  run: (services, actor, input) => getEventAttempt(services, { teamId: actor.teamId, ...input }),
});

export const eventResponsesContract = defineContract({
  name: "events.responses",
  summary: "The event's responses that can be compared: its delivery attempts, then its replays, oldest first",
  kind: "query",
  role: "viewer",
  input: eventIdInput,
  output: z.array(z.custom<ResponseOption>()),
  errors: ["not_found"],
  run: (services, actor, input) => listEventResponses(services, { teamId: actor.teamId, eventId: input.id }),
});

export const compareResponsesContract = defineContract({
  name: "events.compare",
  summary: 'Two of the event\'s responses side by side; left and right are "delivery:<attempt>" or "replay:<replay id>"',
  kind: "query",
  role: "viewer",
  input: z.object({ id: z.string(), left: z.string().max(200), right: z.string().max(200) }),
  output: z.custom<ResponseComparison>(),
  errors: ["not_found"],
  run: (services, actor, { id, ...sides }) => compareResponses(services, { teamId: actor.teamId, eventId: id, ...sides }),
});

export const eventVolumeContract = defineContract({
  name: "events.volume",
  summary: "Volume across all of the team's endpoints, or one of them (the Activity page's strip, following its endpoint filter): events by status and delivery latency over the last hour, day or week",
  kind: "query",
  role: "viewer",
  input: z.object({ range: z.enum(ACTIVITY_RANGES), endpointId: z.string().optional() }),
  output: z.custom<ActivityView>(),
  errors: ["not_found"],
  run: (services, actor, input) => eventActivity(services, { teamId: actor.teamId, ...input }),
});
