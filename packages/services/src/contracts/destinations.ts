import { z } from "zod";
import { createDestination, deleteDestination, listDestinations, resumeDestination, testFilter, updateDestination, type DestinationView } from "../destinations.js";
import { createDestinationInput, destinationChangesInput } from "../schemas/destinations.js";
import { defineContract } from "./contract.js";

// A destination's view is built in one place (destinationView) and never parsed from outside.
const destination = z.custom<DestinationView>();
const ofEndpoint = z.object({ endpointId: z.string() });
const one = ofEndpoint.extend({ destinationId: z.string() });
const params = { id: "endpointId", destination_id: "destinationId" };

export const listDestinationsContract = defineContract({
  name: "destinations.list",
  summary: "The endpoint's destinations, first (its destination_url) first",
  kind: "query",
  role: "viewer",
  input: ofEndpoint,
  output: z.array(destination),
  errors: ["not_found"],
  rest: { method: "GET", path: "/endpoints/{id}/destinations", status: 200, operationId: "listDestinations", summary: "List an endpoint's destinations", params: { id: "endpointId" } },
  run: (services, actor, input) => listDestinations(services, { teamId: actor.teamId, endpointId: input.endpointId }),
});

export const createDestinationContract = defineContract({
  name: "destinations.create",
  summary: "Adds a destination (at most 20 per endpoint); it gets the events captured from now on that its filter lets through",
  kind: "mutation",
  role: "developer",
  input: createDestinationInput.extend({ endpointId: z.string() }),
  output: destination,
  errors: ["not_found", "conflict"],
  rest: {
    method: "POST",
    path: "/endpoints/{id}/destinations",
    status: 201,
    operationId: "createDestination",
    summary: "Add a destination to an endpoint (at most 20): its own URL, filter, rate limit, order, retry policy and circuit breaker",
    params: { id: "endpointId" },
  },
  run: (services, actor, { endpointId, ...input }) => createDestination(services, { teamId: actor.teamId, by: actor, endpointId, ...input }),
});

export const updateDestinationContract = defineContract({
  name: "destinations.update",
  summary: "Changes a destination: a filter applies to events captured from now on, the rest from each delivery's next attempt",
  kind: "mutation",
  role: "developer",
  input: destinationChangesInput.extend({ endpointId: z.string(), destinationId: z.string() }),
  output: destination,
  errors: ["not_found"],
  rest: {
    method: "PATCH",
    path: "/endpoints/{id}/destinations/{destination_id}",
    status: 200,
    operationId: "updateDestination",
    summary: "Change a destination's name, URL, filter, rate limit, order, retry policy or circuit breaker, or disable it",
    params,
  },
  run: (services, actor, { endpointId, destinationId, ...changes }) =>
    updateDestination(services, { teamId: actor.teamId, by: actor, endpointId, destinationId, changes: Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)) }),
});

export const deleteDestinationContract = defineContract({
  name: "destinations.delete",
  summary: "Removes a destination: its pending deliveries are cancelled, its finished ones stay in the events' history",
  kind: "mutation",
  role: "developer",
  input: one,
  output: z.null(),
  errors: ["not_found"],
  rest: { method: "DELETE", path: "/endpoints/{id}/destinations/{destination_id}", status: 204, operationId: "deleteDestination", summary: "Remove a destination", params },
  run: async (services, actor, input) => {
    await deleteDestination(services, { teamId: actor.teamId, by: actor, ...input });
    return null;
  },
});

export const resumeDestinationContract = defineContract({
  name: "destinations.resume",
  summary: "Closes one destination's circuit breaker: its failure count restarts and its waiting deliveries are sent, oldest first",
  kind: "mutation",
  role: "developer",
  input: one,
  output: destination,
  errors: ["not_found"],
  rest: {
    method: "POST",
    path: "/endpoints/{id}/destinations/{destination_id}/resume",
    status: 200,
    operationId: "resumeDestination",
    summary: "Resume forwarding to one destination after its circuit breaker paused it",
    params,
  },
  run: (services, actor, input) => resumeDestination(services, { teamId: actor.teamId, by: actor, ...input }),
});

export const testFilterContract = defineContract({
  name: "destinations.testFilter",
  summary: "Whether a filter lets one stored event through (nothing is saved or sent)",
  kind: "query",
  role: "viewer",
  input: z.object({ eventId: z.string(), filter: z.unknown() }),
  output: z.object({ matches: z.boolean(), workBudgetExceeded: z.boolean() }),
  errors: ["not_found"],
  run: (services, actor, input) => testFilter(services, { teamId: actor.teamId, eventId: input.eventId, filter: input.filter }),
});
