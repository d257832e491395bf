import { z } from "zod";
import { NOTIFICATION_TRIGGERS } from "@rehook/core";
import { createApiKey, createInvite, getNotificationSettings, isAdmin, listInvites, revokeInvite, listApiKeys, revokeApiKey, saveNotificationSettings, sendTestNotification } from "@rehook/services";
import { protectedProcedure, router } from "../trpc.js";

export const apiKeysRouter = router({
  list: protectedProcedure.query(({ ctx }) => listApiKeys(ctx.services, { userId: ctx.user.id })),
  /** The whole key is in this answer only. */
  create: protectedProcedure.input(z.object({ name: z.string().optional() })).mutation(({ ctx, input }) => createApiKey(ctx.services, { userId: ctx.user.id, name: input.name })),
  revoke: protectedProcedure.input(z.object({ id: z.string() })).mutation(async ({ ctx, input }) => {
    await revokeApiKey(ctx.services, { userId: ctx.user.id, keyId: input.id });
    return null;
  }),
});

export const notificationsRouter = router({
  get: protectedProcedure.query(({ ctx }) => getNotificationSettings(ctx.services, { userId: ctx.user.id })),
  save: protectedProcedure
    .input(z.object({ enabled: z.boolean(), webhookUrl: z.string().nullable(), triggers: z.array(z.enum(NOTIFICATION_TRIGGERS)) }))
    .mutation(({ ctx, input }) => saveNotificationSettings(ctx.services, { userId: ctx.user.id, ...input })),
  /** Posts a sample message to the saved URL and answers how the provider took it. */
  sendTest: protectedProcedure.mutation(({ ctx }) => sendTestNotification(ctx.services, { userId: ctx.user.id })),
});

/** One-time invite links (SIGNUP=invite), for admins. */
export const invitesRouter = router({
  /** Whether this user is an admin, and (if so) their recent invites. */
  list: protectedProcedure.query(async ({ ctx }) => {
    const admin = await isAdmin(ctx.services, { userId: ctx.user.id });
    return { isAdmin: admin, invites: admin ? await listInvites(ctx.services, { userId: ctx.user.id }) : [] };
  }),
  /** The link is in this answer only. */
  create: protectedProcedure.mutation(({ ctx }) => createInvite(ctx.services, { userId: ctx.user.id })),
  revoke: protectedProcedure.input(z.object({ id: z.string() })).mutation(async ({ ctx, input }) => {
    await revokeInvite(ctx.services, { userId: ctx.user.id, inviteId: input.id });
    return null;
  }),
});
