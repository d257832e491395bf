import { NOTIFICATION_TRIGGERS, ROLES } from "@rehook/core";
import { z } from "zod";
import { createApiKey, listApiKeys, revokeApiKey, type ApiKeyView } from "../api-keys.js";
import { acceptInvite, createInvite, listInvites, revokeInvite, type InviteView } from "../invites.js";
import { getNotificationSettings, saveNotificationSettings, sendTestNotification, type NotificationSettingsView } from "../notification-settings.js";
import { defineContract } from "./contract.js";

// Settings: API keys, chat notifications, invites. Their answers are views built in one
// place each, declared by their TypeScript types.
type Answer<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;
const nothing = z.object({}).optional();
const byId = z.object({ id: z.string() });

export const listApiKeysContract = defineContract({
  name: "apiKeys.list",
  summary: "The team's API keys, newest first, with their roles and creators (never the keys themselves)",
  kind: "query",
  role: "developer",
  input: nothing,
  output: z.array(z.custom<ApiKeyView>()),
  errors: [],
  run: (services, actor) => listApiKeys(services, { teamId: actor.teamId }),
});

export const createApiKeyContract = defineContract({
  name: "apiKeys.create",
  summary: "A new API key of the team with a role (at most yours; default developer): the whole key is in this answer only",
  kind: "mutation",
  role: "developer",
  input: z.object({ name: z.string().optional(), role: z.enum(ROLES).optional() }),
  output: z.custom<Answer<typeof createApiKey>>(),
  errors: ["forbidden"],
  run: (services, actor, input) => createApiKey(services, actor, input),
});

export const revokeApiKeyContract = defineContract({
  name: "apiKeys.revoke",
  summary: "Revokes an API key: requests with it are refused from now on (admin and owner keys need an admin)",
  kind: "mutation",
  role: "developer",
  input: byId,
  output: z.null(),
  errors: ["forbidden", "not_found"],
  run: async (services, actor, input) => {
    await revokeApiKey(services, actor, { keyId: input.id });
    return null;
  },
});

export const getNotificationsContract = defineContract({
  name: "notifications.get",
  summary: "The team's chat notification settings: where failures are posted and for which triggers",
  kind: "query",
  // The incoming-webhook URL is a secret: whoever holds it can post to the channel.
  role: "admin",
  input: nothing,
  output: z.custom<NotificationSettingsView>(),
  errors: [],
  run: (services, actor) => getNotificationSettings(services, { teamId: actor.teamId }),
});

export const saveNotificationsContract = defineContract({
  name: "notifications.save",
  summary: "Saves the chat notification settings",
  kind: "mutation",
  role: "admin",
  input: z.object({ enabled: z.boolean(), webhookUrl: z.string().nullable(), triggers: z.array(z.enum(NOTIFICATION_TRIGGERS)) }),
  output: z.custom<NotificationSettingsView>(),
  errors: ["unprocessable"],
  run: (services, actor, input) => saveNotificationSettings(services, { teamId: actor.teamId, by: actor, ...input }),
});

export const sendTestNotificationContract = defineContract({
  name: "notifications.sendTest",
  summary: "Posts a sample message to the saved URL and answers how the provider took it",
  kind: "mutation",
  role: "admin",
  input: nothing,
  output: z.custom<Answer<typeof sendTestNotification>>(),
  errors: ["unprocessable"],
  run: (services, actor) => sendTestNotification(services, { teamId: actor.teamId, by: actor }),
});

export const listInvitesContract = defineContract({
  name: "invites.list",
  summary: "The team's recent invite links, with the role each gives",
  kind: "query",
  role: "admin",
  input: nothing,
  output: z.array(z.custom<InviteView>()),
  errors: [],
  run: (services, actor) => listInvites(services, { teamId: actor.teamId }),
});

export const createInviteContract = defineContract({
  name: "invites.create",
  summary: "A one-time link, valid for 7 days, that adds its user to the team with a role (at most yours; default developer): the link is in this answer only",
  kind: "mutation",
  role: "admin",
  input: z.object({ role: z.enum(ROLES).optional() }).default({}),
  output: z.custom<Answer<typeof createInvite>>(),
  errors: ["forbidden", "conflict"],
  run: (services, actor, input) => createInvite(services, actor, input),
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
    await revokeInvite(services, { teamId: actor.teamId, by: actor, inviteId: input.id });
    return null;
  },
});

export const acceptInviteContract = defineContract({
  name: "invites.accept",
  summary: "Joins the team of an invite link opened while signed in (the link is used up)",
  kind: "mutation",
  // Any signed-in user: the link, not a role in the current team, is what admits them.
  role: "viewer",
  input: z.object({ token: z.string() }),
  output: z.object({ teamId: z.string(), name: z.string(), slug: z.string() }),
  errors: ["forbidden", "not_found"],
  run: (services, actor, input) => acceptInvite(services, { userId: actor.userId, token: input.token, ...(actor.origin ? { origin: actor.origin } : {}) }),
});
