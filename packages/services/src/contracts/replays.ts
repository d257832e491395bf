import { z } from "zod";
import type { ReplayJobView } from "../bulk-replays.js";
import { defaultLocalVia, handLocalReplayToListener, localReplayOutcome, localReplayRequest, recordLocalReplay } from "../local-replays.js";
import { editableReplayRequest, getReplay, listReplays, replayEventAttempts } from "../replays.js";
import { recordLocalReplayInput, replayAttempt, replayEventInput, replayOutcome } from "../schemas/replays.js";
import { defineContract } from "./contract.js";

export const replayEventContract = defineContract({
  name: "replays.create",
  summary:
    "Replays an event from the server: to one of its endpoint's destinations, each destination it matched or failed at, a staging host, a custom URL (local when private addresses are open), edited by `overrides` if given",
  kind: "mutation",
  role: "developer",
  input: replayEventInput,
  output: replayOutcome,
  errors: ["not_found", "unprocessable", "payload_too_large"],
  rest: {
    method: "POST",
    path: "/events/{id}/replay",
    status: 200,
    operationId: "replayEvent",
    summary: "Send a stored event again: to a URL, to one of its endpoint's destinations, or to every destination it matched or failed at",
    params: { id: "eventId" },
    names: { customUrl: "destination_url", environment: "target" },
  },
  run: (services, actor, input) => replayEventAttempts(services, { teamId: actor.teamId, userId: actor.userId, by: actor, ...input }),
});

// Dashboard-only operations. Their answers are built in one place each and never parsed from
// outside, so they are declared by their TypeScript types.
type Answer<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;
const eventRef = z.object({ eventId: z.string() });

export const editSourceContract = defineContract({
  name: "replays.editSource",
  summary: 'The request "Edit request" starts from (method, sendable headers, body bytes)',
  kind: "query",
  role: "viewer",
  input: eventRef,
  output: z.custom<Answer<typeof editableReplayRequest>>(),
  errors: ["not_found"],
  run: (services, actor, input) => editableReplayRequest(services, { teamId: actor.teamId, userId: actor.userId, ...input }),
});

export const localRequestContract = defineContract({
  name: "replays.localRequest",
  summary: "What the browser sends for a local replay (it reaches the developer's localhost, we cannot)",
  kind: "query",
  role: "developer",
  input: eventRef.extend({ localPort: z.number().optional() }),
  output: z.custom<Answer<typeof localReplayRequest>>(),
  errors: ["not_found"],
  run: (services, actor, input) => localReplayRequest(services, { teamId: actor.teamId, userId: actor.userId, ...input }),
});

export const recordLocalContract = defineContract({
  name: "replays.recordLocal",
  summary: "Records a replay made from the caller's machine (the dashboard's browser, rehook listen) with its result",
  kind: "mutation",
  role: "developer",
  input: recordLocalReplayInput,
  output: replayAttempt,
  errors: ["not_found", "conflict"],
  rest: {
    method: "POST",
    path: "/events/{id}/local-replays",
    status: 201,
    operationId: "recordLocalReplay",
    summary: "Record a replay made from the caller's machine (rehook listen) with its result",
    params: { id: "eventId" },
    omit: ["localPort"],
  },
  run: (services, actor, { eventId, localPort, localUrl, via, attemptId, status, latencyMs, body, error }) =>
    recordLocalReplay(services, {
      teamId: actor.teamId,
      userId: actor.userId,
      by: actor,
      eventId,
      localPort,
      localUrl,
      via: via ?? defaultLocalVia(actor),
      attemptId,
      result: { status, latencyMs, body: body ?? null, error: error ?? null },
    }),
});

export const handToListenerContract = defineContract({
  name: "replays.handToListener",
  summary: "Hands a Local replay to the member's rehook listen for the event's endpoint, when one is connected",
  kind: "mutation",
  role: "developer",
  input: eventRef,
  output: z.custom<Answer<typeof handLocalReplayToListener>>(),
  errors: ["not_found"],
  run: (services, actor, input) => handLocalReplayToListener(services, { teamId: actor.teamId, userId: actor.userId, ...input }),
});

export const localOutcomeContract = defineContract({
  name: "replays.localOutcome",
  summary: "The record of a Local replay handed to rehook listen, once it reported (null until then)",
  kind: "query",
  role: "developer",
  input: eventRef.extend({ attemptId: z.string() }),
  output: z.custom<Answer<typeof localReplayOutcome>>(),
  errors: ["not_found"],
  run: (services, actor, input) => localReplayOutcome(services, { teamId: actor.teamId, ...input }),
});

export const listReplaysContract = defineContract({
  name: "replays.list",
  summary: "The team's replay attempts, newest first, a page at a time",
  kind: "query",
  role: "viewer",
  input: z.object({ eventId: z.string().optional(), endpointId: z.string().optional(), status: z.string().optional(), before: z.string().optional(), limit: z.number().optional() }),
  output: z.custom<Answer<typeof listReplays>>(),
  errors: [],
  run: (services, actor, input) => listReplays(services, { teamId: actor.teamId, ...input }),
});

export const getReplayContract = defineContract({
  name: "replays.get",
  summary: "One replay attempt with its whole response and what was sent",
  kind: "query",
  role: "viewer",
  input: z.object({ id: z.string() }),
  output: z.custom<Answer<typeof getReplay>>(),
  errors: ["not_found"],
  run: (services, actor, input) => getReplay(services, { teamId: actor.teamId, attemptId: input.id }),
});

export const startBulkContract = defineContract({
  name: "replays.startBulk",
  summary: "Starts a bulk replay of an endpoint's events (failed ones unless another status is given): to one destination, each event's matched or failed destinations, or a URL",
  kind: "mutation",
  role: "developer",
  input: z.object({
    endpointId: z.string(),
    environment: z.string().nullish(),
    destinationId: z.string().nullish(),
    customUrl: z.string().nullish(),
    status: z.string().nullable().optional(),
  }),
  output: z.custom<ReplayJobView>(),
  errors: ["not_found", "unprocessable", "rate_limited"],
  run: (services, actor, input) => services.bulkReplays.start({ teamId: actor.teamId, userId: actor.userId, by: actor, ...input }),
});

export const bulkStatusContract = defineContract({
  name: "replays.bulk",
  summary: "A bulk replay's progress",
  kind: "query",
  role: "viewer",
  input: z.object({ id: z.string() }),
  output: z.custom<ReplayJobView>(),
  errors: ["not_found"],
  run: (services, actor, input) => services.bulkReplays.get({ teamId: actor.teamId, jobId: input.id }),
});
