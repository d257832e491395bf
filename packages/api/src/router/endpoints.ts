import { z } from "zod";
import {
  createEndpoint,
  deleteEndpoint,
  endpointSecret,
  eventActivity,
  getEndpoint,
  listEndpoints,
  resumeEndpoint,
  retryFailedEvents,
  updateEndpoint,
  type EndpointView,
} from "@rehook/services";
import { ACTIVITY_RANGES, HANDSHAKE_PROVIDERS, HMAC_ENCODINGS, SIGNATURE_SCHEMES } from "@rehook/core";
import { protectedProcedure, router } from "../trpc.js";

const byId = z.object({ id: z.string() });

/** Checked in full by the use case (limits named there): here only its shape. */
const retryPolicy = z.object({ maxAttempts: z.number(), initialDelayMs: z.number(), maxDelayMs: z.number() }).nullable();

/** Ingress settings' shapes (checked in full by the use case, limits named there). */
const ingress = {
  response: z.object({ status: z.number(), headers: z.record(z.string(), z.string()).optional(), body: z.string().optional(), delayMs: z.number().optional() }).nullable().optional(),
  handshake: z.object({ provider: z.enum(HANDSHAKE_PROVIDERS), token: z.string().optional() }).nullable().optional(),
  verification: z
    .object({
      scheme: z.enum(SIGNATURE_SCHEMES),
      secret: z.string().optional(),
      rejectInvalid: z.boolean().optional(),
      header: z.string().optional(),
      encoding: z.enum(HMAC_ENCODINGS).optional(),
      prefix: z.string().optional(),
    })
    .nullable()
    .optional(),
};

/** An endpoint for the dashboard: the delivery and ingress settings and breaker state camelCased. */
function dashboardEndpoint<View extends EndpointView>(view: View) {
  const { retry_policy, pause_after_failures, consecutive_failures, forwarding_paused, paused_reason, paused_at, retention_days, kept_for_days, response, verification, ...rest } = view;
  return {
    ...rest,
    response: response && { status: response.status, headers: response.headers, body: response.body, delayMs: response.delay_ms },
    verification: verification && {
      scheme: verification.scheme,
      rejectInvalid: verification.reject_invalid,
      secret: verification.secret,
      header: verification.header,
      encoding: verification.encoding,
      prefix: verification.prefix,
    },
    retryPolicy: retry_policy && { maxAttempts: retry_policy.max_attempts, initialDelayMs: retry_policy.initial_delay_ms, maxDelayMs: retry_policy.max_delay_ms },
    pauseAfterFailures: pause_after_failures,
    consecutiveFailures: consecutive_failures,
    forwardingPaused: forwarding_paused,
    pausedReason: paused_reason,
    pausedAt: paused_at,
    retentionDays: retention_days,
    keptForDays: kept_for_days,
  };
}

export const endpointsRouter = router({
  list: protectedProcedure.query(async ({ ctx }) => (await listEndpoints(ctx.services, { userId: ctx.user.id })).map(dashboardEndpoint)),

  get: protectedProcedure
    .input(byId)
    .query(async ({ ctx, input }) => dashboardEndpoint(await getEndpoint(ctx.services, { userId: ctx.user.id, endpoint: { id: input.id } }))),

  create: protectedProcedure
    .input(
      z.object({
        name: z.string(),
        destinationUrl: z.string().nullish(),
        keepProxyHeaders: z.boolean().optional(),
        retryPolicy: retryPolicy.optional(),
        pauseAfterFailures: z.number().nullable().optional(),
        retentionDays: z.number().nullable().optional(),
        ...ingress,
      }),
    )
    .mutation(async ({ ctx, input }) =>
      dashboardEndpoint(
        await createEndpoint(ctx.services, {
          userId: ctx.user.id,
          name: input.name,
          destinationUrl: input.destinationUrl ?? null,
          keepProxyHeaders: input.keepProxyHeaders,
          retryPolicy: input.retryPolicy,
          pauseAfterFailures: input.pauseAfterFailures,
          retentionDays: input.retentionDays,
          response: input.response,
          handshake: input.handshake,
          verification: input.verification,
        }),
      ),
    ),

  update: protectedProcedure
    .input(
      z.object({
        id: z.string(),
        name: z.string().optional(),
        destinationUrl: z.string().nullish(),
        stagingHost: z.string().nullish(),
        signRequests: z.boolean().optional(),
        keepProxyHeaders: z.boolean().optional(),
        retryPolicy: retryPolicy.optional(),
        pauseAfterFailures: z.number().nullable().optional(),
        retentionDays: z.number().nullable().optional(),
        ...ingress,
      }),
    )
    .mutation(async ({ ctx, input: { id, ...changes } }) => dashboardEndpoint(await updateEndpoint(ctx.services, { userId: ctx.user.id, endpoint: { id }, changes }))),

  delete: protectedProcedure.input(byId).mutation(async ({ ctx, input }) => {
    await deleteEndpoint(ctx.services, { userId: ctx.user.id, endpoint: { id: input.id } });
    return null;
  }),

  /** The whsec_ secret, fetched only when the user reveals it. */
  secret: protectedProcedure.input(byId).query(({ ctx, input }) => endpointSecret(ctx.services, { userId: ctx.user.id, endpoint: { id: input.id } })),

  rotateSecret: protectedProcedure
    .input(byId)
    .mutation(({ ctx, input }) => endpointSecret(ctx.services, { userId: ctx.user.id, endpoint: { id: input.id }, rotate: true })),

  /** Closes the circuit breaker: the failure count restarts and waiting events are sent, oldest first. */
  resume: protectedProcedure
    .input(byId)
    .mutation(async ({ ctx, input }) => {
      await resumeEndpoint(ctx.services, { userId: ctx.user.id, endpointId: input.id });
      return dashboardEndpoint(await getEndpoint(ctx.services, { userId: ctx.user.id, endpoint: { id: input.id } }));
    }),

  /** The endpoint's charts: events by status and delivery latency p50/p95 over the last hour, day or week. */
  activity: protectedProcedure
    .input(z.object({ id: z.string(), range: z.enum(ACTIVITY_RANGES) }))
    .query(({ ctx, input }) => eventActivity(ctx.services, { userId: ctx.user.id, endpointId: input.id, range: input.range })),

  /** Every failed event of the endpoint due again now: `{ count }` (queued, not sent, while paused). */
  retryFailed: protectedProcedure.input(byId).mutation(({ ctx, input }) => retryFailedEvents(ctx.services, { userId: ctx.user.id, endpointId: input.id })),
});
