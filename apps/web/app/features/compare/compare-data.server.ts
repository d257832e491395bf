import type { LoaderFunctionArgs, SerializeFrom } from "@remix-run/node";
import { hasCode, throwIfNotFound } from "../../lib/errors";
import { requireUser } from "../../lib/session.server";

/** The compare page's loader (routes/_app.events.$id_.compare.tsx): the event's responses and the two chosen, compared. */
export async function loadComparePage({ request, context, params }: LoaderFunctionArgs) {
  requireUser(context, request);
  const id = params.id ?? "";
  let options;
  try {
    options = await context.caller.events.responses({ id });
  } catch (error) {
    throwIfNotFound(error);
    throw error;
  }
  const event = await context.caller.events.get({ id }).then((found) => ({ eventType: found.eventType, method: found.method }));
  const search = new URL(request.url).searchParams;
  // Unchosen: the first response (usually the original delivery) against the newest.
  const left = search.get("left") ?? options[0]?.ref ?? null;
  const right = search.get("right") ?? options.at(-1)?.ref ?? null;
  let comparison = null;
  let problem: string | null = null;
  if (left && right && options.length >= 2) {
    try {
      comparison = await context.caller.events.compare({ id, left, right });
    } catch (error) {
      // A stale or mistyped choice in the URL: say so and keep the pickers.
      if (!hasCode(error, "NOT_FOUND") && !hasCode(error, "BAD_REQUEST")) throw error;
      problem = error instanceof Error ? error.message : "That response cannot be compared.";
    }
  }
  return { eventId: id, eventType: event.eventType, options, left, right, comparison, problem };
}

/** What the compare page's loader answers, as the page and its panels read it. */
export type ComparePageData = SerializeFrom<typeof loadComparePage>;
export type Comparison = NonNullable<ComparePageData["comparison"]>;
export type Side = Comparison["left"];
