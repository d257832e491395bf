import { NOTIFICATION_TRIGGERS } from "@rehook/core";
import { z } from "zod";
import { createApiKey, listApiKeys, revokeApiKey, type ApiKeyView } from "../api-keys.js";
import { createInvite, isAdmin, listInvites, revokeInvite, type InviteView } from "../invites.js";
import { getNotificationSettings, saveNotificationSettings, sendTestNotification, type NotificationSettingsView } from "../notification-settings.js";
import { defineContract } from "./contract.js";

// Settings: API keys, chat notifications, invites. Their answers are views built in one
// place each, declared by their TypeScript types.
type Answer<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;
const nothing = z.object({}).optional();
const byId = z.object({ id: z.string() });

export const listApiKeysContract = defineContract({
  name: "apiKeys.list",
  summary: "The user's API keys, newest first (never the keys themselves)",
  kind: "query",
  role: "admin",
  input: nothing,
  output: z.array(z.custom<ApiKeyView>()),
  errors: [],
  run: (services, actor) => listApiKeys(services, { userId: actor.userId }),
});

export const createApiKeyContract = defineContract({
  name: "apiKeys.create",
  summary: "A new API key: the whole key is in this answer only",
  kind: "mutation",
  role: "admin",
  input: z.object({ name: z.string().optional() }),
  output: z.custom<Answer<typeof createApiKey>>(),
  errors: [],
  run: (services, actor, input) => createApiKey(services, { userId: actor.userId, name: input.name }),
});

export const revokeApiKeyContract = defineContract({
  name: "apiKeys.revoke",
  summary: "Revokes an API key: requests with it are refused from now on",
  kind: "mutation",
  role: "admin",
  input: byId,
  output: z.null(),
  errors: ["not_found"],
  run: async (services, actor, input) => {
    await revokeApiKey(services, { userId: actor.userId, keyId: input.id });
    return null;
  },
});

export const getNotificationsContract = defineContract({
  name: "notifications.get",
  summary: "The chat notification settings: where failures are posted and for which triggers",
  kind: "query",
  role: "viewer",
  input: nothing,
  output: z.custom<NotificationSettingsView>(),
  errors: [],
  run: (services, actor) => getNotificationSettings(services, { userId: actor.userId }),
});

export const saveNotificationsContract = defineContract({
  name: "notifications.save",
  summary: "Saves the chat notification settings",
  kind: "mutation",
  role: "admin",
  input: z.object({ enabled: z.boolean(), webhookUrl: z.string().nullable(), triggers: z.array(z.enum(NOTIFICATION_TRIGGERS)) }),
  output: z.custom<NotificationSettingsView>(),
  errors: ["unprocessable"],
  run: (services, actor, input) => saveNotificationSettings(services, { userId: actor.userId, ...input }),
});

export const sendTestNotificationContract = defineContract({
  name: "notifications.sendTest",
  summary: "Posts a sample message to the saved URL and answers how the provider took it",
  kind: "mutation",
  role: "admin",
  input: nothing,
  output: z.custom<Answer<typeof sendTestNotification>>(),
  errors: ["unprocessable"],
  run: (services, actor) => sendTestNotification(services, { userId: actor.userId }),
});

export const listInvitesContract = defineContract({
  name: "invites.list",
  summary: "Whether this user is an admin, and (if so) their recent invites",
  kind: "query",
  role: "admin",
  input: nothing,
  output: z.object({ isAdmin: z.boolean(), invites: z.array(z.custom<InviteView>()) }),
  errors: [],
  run: async (services, actor) => {
    const admin = await isAdmin(services, { userId: actor.userId });
    return { isAdmin: admin, invites: admin ? await listInvites(services, { userId: actor.userId }) : [] };
  },
});

export const createInviteContract = defineContract({
  name: "invites.create",
  summary: "A one-time invite link (SIGNUP=invite): the link is in this answer only",
  kind: "mutation",
  role: "admin",
  input: nothing,
  output: z.custom<Answer<typeof createInvite>>(),
  errors: ["forbidden"],
  run: (services, actor) => createInvite(services, { userId: actor.userId }),
});

export const revokeInviteContract = defineContract({
  name: "invites.revoke",
  summary: "Revokes an unused invite link",
  kind: "mutation",
  role: "admin",
  input: byId,
  output: z.null(),
  errors: ["forbidden", "not_found"],
  run: async (services, actor, input) => {
    await revokeInvite(services, { userId: actor.userId, inviteId: input.id });
    return null;
  },
});
