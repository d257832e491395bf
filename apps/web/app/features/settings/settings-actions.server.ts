import { redirect, type ActionFunctionArgs } from "@remix-run/node";
import { errorMessage, hasCode } from "../../lib/errors";
import { noticeCookie } from "../../lib/notice.server";
import { isRole, withArticle } from "../../lib/roles";
import { requireUser } from "../../lib/session.server";
import { reply, type ActionReply } from "./action-reply";
import { isTrigger } from "./triggers";
import type { AlertChannel, AlertTrigger } from "@rehook/core/browser";

/** What a handler gets: the session's procedures, the posted form, its intent and its `id` field. */
interface Submission {
  caller: ActionFunctionArgs["context"]["caller"];
  form: FormData;
  intent: string;
  id: string;
}
type Handler = (submission: Submission) => Promise<ActionReply>;

/** The posted `role` field, if it names a role (anything else is left to the server's default). */
function roleField(form: FormData) {
  const role = form.get("role");
  return isRole(role) ? role : undefined;
}

/** Leaving or deleting the team: the dashboard goes back to the user's other (or personal) team, with a notice. */
function leftTeam(notice: string): never {
  throw redirect("/", { status: 303, headers: { "Set-Cookie": noticeCookie(notice) } });
}

async function createKey({ caller, form, intent }: Submission): Promise<ActionReply> {
  const created = await caller.apiKeys.create({ name: String(form.get("name") ?? ""), role: roleField(form) });
  return reply(intent, { id: created.apiKey.id, key: created.key, name: created.apiKey.name });
}

async function revokeKey({ caller, intent, id }: Submission): Promise<ActionReply> {
  await caller.apiKeys.revoke({ id });
  return reply(intent, { id });
}

async function createInvite({ caller, form, intent }: Submission): Promise<ActionReply> {
  const created = await caller.invites.create({ role: roleField(form) });
  return reply(intent, { id: created.invite.id, key: created.url, note: created.note });
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

/** The Add rule form's fields as the alert rule contract takes them. */
function alertRuleFields(form: FormData) {
  const text = (name: string) => String(form.get(name) ?? "");
  const threshold = text("threshold").trim();
  return {
    name: text("name"),
    trigger: text("trigger") as AlertTrigger,
    threshold: threshold === "" ? null : Number(threshold),
    endpointId: text("endpointId") || null,
    channel: text("channel") as AlertChannel,
    target: text("target"),
  };
}

async function createAlert({ caller, form, intent }: Submission): Promise<ActionReply> {
  const created = await caller.alerts.create(alertRuleFields(form));
  return reply(intent, { id: created.id });
}

async function testAlert({ caller, intent, id }: Submission): Promise<ActionReply> {
  const sent = await caller.alerts.sendTest({ id });
  return sent.ok ? reply(intent, { id, message: sent.message }) : reply(intent, { ok: false, id, error: sent.message });
}

/** Turns a rule off or on (saving it on again also resumes a paused one). */
async function toggleAlert({ caller, form, intent, id }: Submission): Promise<ActionReply> {
  const enabled = form.get("enabled") === "true";
  await caller.alerts.update({ id, enabled });
  return reply(intent, { id, message: enabled ? "The rule is on." : "The rule is off." });
}

async function deleteAlert({ caller, intent, id }: Submission): Promise<ActionReply> {
  await caller.alerts.delete({ id });
  return reply(intent, { id });
}

async function setRole({ caller, form, intent, id }: Submission): Promise<ActionReply> {
  const role = roleField(form);
  if (!role) return reply(intent, { ok: false, id, error: "choose a role from the list" });
  await caller.members.setRole({ userId: id, role });
  return reply(intent, { id, message: `${String(form.get("email") ?? "The member")} is now ${withArticle(role)}.` });
}

async function removeMember({ caller, form, intent, id }: Submission): Promise<ActionReply> {
  const { revokedKeys } = await caller.members.remove({ userId: id });
  const email = String(form.get("email") ?? "The member");
  const keys = revokedKeys === 0 ? "" : ` ${revokedKeys} API key${revokedKeys === 1 ? " they made was" : "s they made were"} revoked.`;
  return reply(intent, { id, message: `${email} was removed from the team.${keys}` });
}

async function leaveTeam({ caller }: Submission): Promise<ActionReply> {
  const team = await caller.teams.current();
  const { revokedKeys } = await caller.members.leave();
  const keys = revokedKeys === 0 ? "" : ` The ${revokedKeys} API key${revokedKeys === 1 ? "" : "s"} you made for it ${revokedKeys === 1 ? "was" : "were"} revoked.`;
  return leftTeam(`You left the team “${team.name}”.${keys}`);
}

async function renameTeam({ caller, form, intent }: Submission): Promise<ActionReply> {
  await caller.teams.rename({ name: String(form.get("name") ?? "") });
  return reply(intent);
}

async function deleteTeam({ caller, form, intent }: Submission): Promise<ActionReply> {
  const team = await caller.teams.current();
  // The typed name is the confirmation: checked here too, not only by the dialog's button.
  if (String(form.get("confirm") ?? "") !== team.name) return reply(intent, { ok: false, error: `type the team's name, ${team.name}, to delete it` });
  await caller.teams.delete();
  return leftTeam(`The team “${team.name}” was deleted, with its endpoints, events, API keys and invites.`);
}

/** One handler per intent the Settings page's forms post. */
const HANDLERS: Record<string, Handler> = {
  createKey,
  revokeKey,
  createInvite,
  revokeInvite,
  rotateSecret,
  saveNotifications,
  testNotification,
  createAlert,
  testAlert,
  toggleAlert,
  deleteAlert,
  setRole,
  removeMember,
  leaveTeam,
  renameTeam,
  deleteTeam,
};

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
    // Leaving or deleting the team redirects (thrown by leftTeam).
    if (error instanceof Response) throw error;
    const message = hasCode(error, "NOT_FOUND") ? "it no longer exists: reload the page" : errorMessage(error);
    return reply(intent, { ok: false, id: id || null, error: message });
  }
}
