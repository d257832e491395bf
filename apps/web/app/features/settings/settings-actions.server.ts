import type { ActionFunctionArgs } from "@remix-run/node";
import { errorMessage, hasCode } from "../../lib/errors";
import { requireUser } from "../../lib/session.server";
import { reply, type ActionReply } from "./action-reply";
import { isTrigger } from "./triggers";

/** What a handler gets: the session's procedures, the posted form, its intent and its `id` field. */
interface Submission {
  caller: ActionFunctionArgs["context"]["caller"];
  form: FormData;
  intent: string;
  id: string;
}
type Handler = (submission: Submission) => Promise<ActionReply>;

async function createKey({ caller, form, intent }: Submission): Promise<ActionReply> {
  const created = await caller.apiKeys.create({ name: String(form.get("name") ?? "") });
  return reply(intent, { id: created.apiKey.id, key: created.key, name: created.apiKey.name });
}

async function revokeKey({ caller, intent, id }: Submission): Promise<ActionReply> {
  await caller.apiKeys.revoke({ id });
  return reply(intent, { id });
}

async function createInvite({ caller, intent }: Submission): Promise<ActionReply> {
  const created = await caller.invites.create();
  return reply(intent, { id: created.invite.id, key: created.url });
}

async function revokeInvite({ caller, intent, id }: Submission): Promise<ActionReply> {
  await caller.invites.revoke({ id });
  return reply(intent, { id });
}

async function rotateSecret({ caller, intent, id }: Submission): Promise<ActionReply> {
  const rotated = await caller.endpoints.rotateSecret({ id });
  return reply(intent, { id, secret: rotated.secret });
}

async function saveNotifications({ caller, form, intent }: Submission): Promise<ActionReply> {
  const webhookUrl = String(form.get("webhookUrl") ?? "");
  await caller.notifications.save({
    enabled: form.get("enabled") !== null,
    webhookUrl: webhookUrl.trim() === "" ? null : webhookUrl,
    triggers: form.getAll("triggers").filter(isTrigger),
  });
  return reply(intent);
}

async function testNotification({ caller, form, intent }: Submission): Promise<ActionReply> {
  // The test goes to the SAVED URL: say so when the field holds another, unsaved one.
  const [sent, saved] = await Promise.all([caller.notifications.sendTest(), caller.notifications.get()]);
  const typed = String(form.get("webhookUrl") ?? "").trim();
  const note =
    typed !== "" && saved.webhookUrl !== null && typed !== saved.webhookUrl
      ? "This went to the saved URL, not the one in the field: save the new URL first to try it."
      : null;
  return sent.ok ? reply(intent, { message: sent.message, note }) : reply(intent, { ok: false, message: "The provider refused the test message.", error: sent.message, note });
}

/** One handler per intent the Settings page's forms post. */
const HANDLERS: Record<string, Handler> = { createKey, revokeKey, createInvite, revokeInvite, rotateSecret, saveNotifications, testNotification };

/** Runs the posted intent's handler; an unknown intent, or a failure, answers ok: false with why. */
export async function settingsAction({ request, context }: ActionFunctionArgs): Promise<ActionReply> {
  requireUser(context, request);
  const form = await request.formData();
  const intent = String(form.get("intent") ?? "");
  const id = String(form.get("id") ?? "");
  // Own keys only: an intent such as "toString" is unknown, not Object.prototype's.
  const handler = Object.hasOwn(HANDLERS, intent) ? HANDLERS[intent] : undefined;
  if (!handler) return reply(intent, { ok: false, error: "unknown action: reload the page and try again" });
  try {
    return await handler({ caller: context.caller, form, intent, id });
  } catch (error) {
    const message = hasCode(error, "NOT_FOUND") ? "it no longer exists: reload the page" : errorMessage(error);
    return reply(intent, { ok: false, id: id || null, error: message });
  }
}
