import { z } from "zod";
import { editableReplayRequest, getReplay, listReplays, localReplayRequest, recordLocalReplay, replayEvent } from "@rehook/services";
import { protectedProcedure, router } from "../trpc.js";

export const replaysRouter = router({
  /** Replays an event from the server (original, staging, custom; local when private addresses are open), edited by `overrides` if given. */
  create: protectedProcedure
    // overrides are checked by the use case (core's parseReplayOverrides), with its sentences.
    .input(z.object({ eventId: z.string(), environment: z.string(), customUrl: z.string().nullish(), overrides: z.unknown().optional() }))
    .mutation(({ ctx, input }) => replayEvent(ctx.services, { userId: ctx.user.id, ...input })),

  /** The request "Edit request" starts from (method, sendable headers, body bytes). */
  editSource: protectedProcedure
    .input(z.object({ eventId: z.string() }))
    .query(({ ctx, input }) => editableReplayRequest(ctx.services, { userId: ctx.user.id, ...input })),

  /** What the browser sends for a local replay (it reaches the developer's localhost, we cannot). */
  localRequest: protectedProcedure
    .input(z.object({ eventId: z.string(), localPort: z.number().optional() }))
    .query(({ ctx, input }) => localReplayRequest(ctx.services, { userId: ctx.user.id, ...input })),

  /** Records the browser's local replay with the browser's result. */
  recordLocal: protectedProcedure
    .input(
      z.object({
        eventId: z.string(),
        localPort: z.number().optional(),
        result: z.object({ status: z.number().nullable(), body: z.string().nullable(), latencyMs: z.number(), error: z.string().nullable() }),
      }),
    )
    .mutation(({ ctx, input }) => recordLocalReplay(ctx.services, { userId: ctx.user.id, ...input })),

  list: protectedProcedure
    .input(
      z.object({
        eventId: z.string().optional(),
        endpointId: z.string().optional(),
        status: z.string().optional(),
        before: z.string().optional(),
        limit: z.number().optional(),
      }),
    )
    .query(({ ctx, input }) => listReplays(ctx.services, { userId: ctx.user.id, ...input })),

  get: protectedProcedure.input(z.object({ id: z.string() })).query(({ ctx, input }) => getReplay(ctx.services, { userId: ctx.user.id, attemptId: input.id })),

  /** Starts a bulk replay of an endpoint's events (failed ones unless another status is given). */
  startBulk: protectedProcedure
    .input(z.object({ endpointId: z.string(), environment: z.string(), customUrl: z.string().nullish(), status: z.string().nullable().optional() }))
    .mutation(({ ctx, input }) => ctx.services.bulkReplays.start({ userId: ctx.user.id, ...input })),

  bulk: protectedProcedure.input(z.object({ id: z.string() })).query(({ ctx, input }) => ctx.services.bulkReplays.get({ userId: ctx.user.id, jobId: input.id })),
});
