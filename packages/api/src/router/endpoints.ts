import { z } from "zod";
import { createEndpoint, deleteEndpoint, endpointSecret, getEndpoint, listEndpoints, updateEndpoint } from "@rehook/services";
import { protectedProcedure, router } from "../trpc.js";

const byId = z.object({ id: z.string() });

export const endpointsRouter = router({
  list: protectedProcedure.query(({ ctx }) => listEndpoints(ctx.services, { userId: ctx.user.id })),

  get: protectedProcedure.input(byId).query(({ ctx, input }) => getEndpoint(ctx.services, { userId: ctx.user.id, endpoint: { id: input.id } })),

  create: protectedProcedure
    .input(z.object({ name: z.string(), destinationUrl: z.string().nullish(), keepProxyHeaders: z.boolean().optional() }))
    .mutation(({ ctx, input }) =>
      createEndpoint(ctx.services, { userId: ctx.user.id, name: input.name, destinationUrl: input.destinationUrl ?? null, keepProxyHeaders: input.keepProxyHeaders }),
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
      }),
    )
    .mutation(({ ctx, input: { id, ...changes } }) => updateEndpoint(ctx.services, { userId: ctx.user.id, endpoint: { id }, changes })),

  delete: protectedProcedure.input(byId).mutation(async ({ ctx, input }) => {
    await deleteEndpoint(ctx.services, { userId: ctx.user.id, endpoint: { id: input.id } });
    return null;
  }),

  /** The whsec_ secret, fetched only when the user reveals it. */
  secret: protectedProcedure.input(byId).query(({ ctx, input }) => endpointSecret(ctx.services, { userId: ctx.user.id, endpoint: { id: input.id } })),

  rotateSecret: protectedProcedure
    .input(byId)
    .mutation(({ ctx, input }) => endpointSecret(ctx.services, { userId: ctx.user.id, endpoint: { id: input.id }, rotate: true })),
});
