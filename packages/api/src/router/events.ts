import { z } from "zod";
import { eventContracts, eventFilterInput, eventSummary, openLiveEvents } from "@rehook/services";
import { inputParser, mutationOf, presentedQueryOf, queryOf } from "../contract-procedure.js";
import { dashboardAttempt, dashboardEvent } from "../presenters/event.js";
import { protectedProcedure, router } from "../trpc.js";

const liveBatch = z.array(eventSummary);

/** Each live message checked against the feed row's schema (a subscription's output schema is its messages'). */
async function* checked(batches: AsyncGenerator<unknown[]>) {
  for await (const batch of batches) yield liveBatch.parse(batch);
}

export const eventsRouter = router({
  delete: mutationOf(eventContracts.deleteEventContract),
  volume: queryOf(eventContracts.eventVolumeContract),
  list: queryOf(eventContracts.listEventsContract),
  get: presentedQueryOf(eventContracts.getEventContract, dashboardEvent),
  responses: queryOf(eventContracts.eventResponsesContract),
  compare: queryOf(eventContracts.compareResponsesContract),
  attempt: presentedQueryOf(eventContracts.eventAttemptContract, dashboardAttempt),
  retry: mutationOf(eventContracts.retryEventContract),

  /** New events and status changes, pushed over server-sent events as they happen; each message a batch of feed rows. */
  live: protectedProcedure.input(inputParser(eventFilterInput)).subscription(async ({ ctx, input, signal }) =>
    // Opened before tRPC starts the stream, so too many open streams ends it with TOO_MANY_REQUESTS
    // (sent as an error event on the stream: tRPC has already answered 200 by then).
    checked(await openLiveEvents(ctx.services, { teamId: ctx.actor.teamId, userId: ctx.actor.userId, filter: input, signal: signal ?? new AbortController().signal })),
  ),
});
