import { ACTIVITY_RANGES } from "@rehook/core";
import { z } from "zod";
import { createEndpoint, deleteEndpoint, endpointSecret, getEndpoint, listEndpoints, updateEndpoint, type EndpointListItem, type EndpointView } from "../endpoints.js";
import { eventActivity, type ActivityView } from "../event-activity.js";
import { resumeEndpoint, retryFailedEvents } from "../retries.js";
import { createEndpointInput, endpointChangesInput } from "../schemas/endpoints.js";
import { defineContract } from "./contract.js";

// An endpoint's view is built in one place (endpointView) and never parsed from outside:
// it is declared by its TypeScript type.
const endpoint = z.custom<EndpointView>();
const byId = z.object({ id: z.string() });

export const listEndpointsContract = defineContract({
  name: "endpoints.list",
  summary: "The team's endpoints, oldest first, with each one's event total and newest event's time",
  kind: "query",
  role: "viewer",
  // Left out as a whole (the dashboard): every endpoint.
  input: z.object({ limit: z.number().int().min(1).max(100).optional(), offset: z.number().int().min(0).default(0) }).default({ offset: 0 }),
  output: z.object({ endpoints: z.array(z.custom<EndpointListItem>()), total: z.number() }),
  errors: [],
  rest: { method: "GET", path: "/endpoints", status: 200, operationId: "listEndpoints", summary: "List endpoints", defaults: { limit: 20 } },
  run: async (services, actor, { limit, offset }) => {
    const all = await listEndpoints(services, { teamId: actor.teamId });
    return { endpoints: all.slice(offset, limit === undefined ? undefined : offset + limit), total: all.length };
  },
});

export const createEndpointContract = defineContract({
  name: "endpoints.create",
  summary: "Creates an endpoint: a new capture URL, forwarding to its destination if it has one",
  kind: "mutation",
  role: "developer",
  input: createEndpointInput,
  output: endpoint,
  errors: [],
  rest: { method: "POST", path: "/endpoints", status: 201, operationId: "createEndpoint", summary: "Create an endpoint" },
  run: (services, actor, input) => createEndpoint(services, { teamId: actor.teamId, by: actor, ...input }),
});

export const getEndpointContract = defineContract({
  name: "endpoints.get",
  summary: "One endpoint with its settings and delivery health",
  kind: "query",
  role: "viewer",
  input: byId,
  output: endpoint,
  errors: ["not_found"],
  rest: { method: "GET", path: "/endpoints/{id}", status: 200, operationId: "getEndpoint", summary: "One endpoint with its settings and delivery health", params: { id: "id" } },
  run: (services, actor, input) => getEndpoint(services, { teamId: actor.teamId, endpoint: { id: input.id } }),
});

export const updateEndpointContract = defineContract({
  name: "endpoints.update",
  summary: "Changes an endpoint's settings; a new destination applies to events captured from now on",
  kind: "mutation",
  role: "developer",
  input: endpointChangesInput.extend({ id: z.string() }),
  output: endpoint,
  errors: ["not_found"],
  rest: {
    method: "PATCH",
    path: "/endpoints/{id}",
    status: 200,
    operationId: "updateEndpoint",
    summary:
      "Rename an endpoint, change its destination, whether it keeps proxy headers, its retry policy, circuit breaker, custom response, handshake or signature check",
    params: { id: "id" },
    omit: ["stagingHost", "signRequests"],
  },
  run: async (services, actor, { id, ...changes }) => {
    const named = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
    // Naming nothing changes nothing: the endpoint as it is.
    if (Object.keys(named).length === 0) return getEndpoint(services, { teamId: actor.teamId, endpoint: { id } });
    return updateEndpoint(services, { teamId: actor.teamId, by: actor, endpoint: { id }, changes: named });
  },
});

export const deleteEndpointContract = defineContract({
  name: "endpoints.delete",
  summary: "Deletes an endpoint and all its events (permanent)",
  kind: "mutation",
  role: "admin",
  input: byId,
  output: z.null(),
  errors: ["not_found"],
  rest: { method: "DELETE", path: "/endpoints/{id}", status: 204, operationId: "deleteEndpoint", summary: "Delete an endpoint and all its events (permanent)", params: { id: "id" } },
  run: async (services, actor, input) => {
    await deleteEndpoint(services, { teamId: actor.teamId, by: actor, endpoint: { id: input.id } });
    return null;
  },
});

export const resumeEndpointContract = defineContract({
  name: "endpoints.resume",
  summary: "Closes the circuit breaker: the failure count restarts and waiting events are sent, oldest first",
  kind: "mutation",
  role: "developer",
  input: byId,
  output: endpoint,
  errors: ["not_found"],
  rest: {
    method: "POST",
    path: "/endpoints/{id}/resume",
    status: 200,
    operationId: "resumeEndpoint",
    summary:
      "Resume forwarding after the circuit breaker paused it: the failure count restarts and waiting events (scheduled retries made due now) are sent, oldest first",
    params: { id: "id" },
  },
  run: async (services, actor, input) => {
    await resumeEndpoint(services, { teamId: actor.teamId, by: actor, endpointId: input.id });
    return getEndpoint(services, { teamId: actor.teamId, endpoint: { id: input.id } });
  },
});

export const retryFailedContract = defineContract({
  name: "endpoints.retryFailed",
  summary: "Every failed event of the endpoint due again now (queued, not sent, while paused)",
  kind: "mutation",
  role: "developer",
  input: byId,
  output: z.object({ count: z.number(), forwardingPaused: z.boolean(), message: z.string() }),
  errors: ["not_found"],
  rest: {
    method: "POST",
    path: "/endpoints/{id}/retry-failed",
    status: 202,
    operationId: "retryFailedEvents",
    summary: "Retry every failed event of the endpoint now (each gets a new attempt); queued but not sent while the endpoint is paused",
    params: { id: "id" },
  },
  run: (services, actor, input) => retryFailedEvents(services, { teamId: actor.teamId, by: actor, endpointId: input.id }),
});

export const endpointSecretContract = defineContract({
  name: "endpoints.secret",
  summary: "The whsec_ signing secret, fetched only when a developer reveals it",
  kind: "query",
  role: "developer",
  input: byId,
  output: z.object({ id: z.string(), slug: z.string(), secret: z.string() }),
  errors: ["not_found"],
  run: (services, actor, input) => endpointSecret(services, { teamId: actor.teamId, by: actor, endpoint: { id: input.id } }),
});

export const rotateSecretContract = defineContract({
  name: "endpoints.rotateSecret",
  summary: "A new signing secret; the old one stops at once",
  kind: "mutation",
  role: "developer",
  input: byId,
  output: z.object({ id: z.string(), slug: z.string(), secret: z.string() }),
  errors: ["not_found"],
  run: (services, actor, input) => endpointSecret(services, { teamId: actor.teamId, by: actor, endpoint: { id: input.id }, rotate: true }),
});

export const endpointActivityContract = defineContract({
  name: "endpoints.activity",
  summary: "The endpoint's charts: events by status and delivery latency p50/p95 over the last hour, day or week",
  kind: "query",
  role: "viewer",
  input: z.object({ id: z.string(), range: z.enum(ACTIVITY_RANGES) }),
  output: z.custom<ActivityView>(),
  errors: ["not_found"],
  run: (services, actor, input) => eventActivity(services, { teamId: actor.teamId, endpointId: input.id, range: input.range }),
});
