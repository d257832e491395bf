import { redirect, type ActionFunctionArgs } from "@remix-run/node";
import { errorMessage, throwIfNotFound } from "../lib/errors";
import { noticeCookie } from "../lib/notice.server";
import { requireUser } from "../lib/session.server";

/** Deletes one event (the event page's Delete dialog posts here), then back to Activity with a notice. */
export async function action({ request, context, params }: ActionFunctionArgs) {
  requireUser(context, request);
  const id = params.id ?? "";
  try {
    await context.caller.events.delete({ id });
  } catch (error) {
    throwIfNotFound(error);
    return { error: errorMessage(error) };
  }
  return redirect("/events", {
    status: 303,
    headers: { "Set-Cookie": noticeCookie(`Event ${id} was deleted, with its delivery attempts and replays.`) },
  });
}
