import type { ActionFunctionArgs } from "@remix-run/node";
import { errorMessage } from "../lib/errors";
import { requireUser } from "../lib/session.server";

/**
 * "Test this filter" (features/endpoint/filter-tester.tsx) posts here: whether a filter lets
 * one stored event through, by destinations.testFilter. A resource route answering JSON, 200
 * with the outcome or the refusal's message, so a filter being typed is tested without the
 * page's loaders running again.
 */
export async function action({ request, context }: ActionFunctionArgs) {
  requireUser(context, request);
  let input: { eventId?: unknown; filter?: unknown };
  try {
    input = (await request.json()) as typeof input;
  } catch {
    return Response.json({ ok: false, error: "The test could not be read: send it as JSON." });
  }
  try {
    const { matches, workBudgetExceeded } = await context.caller.destinations.testFilter({ eventId: String(input.eventId ?? ""), filter: input.filter ?? null });
    return Response.json({ ok: true, matches, workBudgetExceeded });
  } catch (error) {
    return Response.json({ ok: false, error: errorMessage(error) });
  }
}

export function loader() {
  return new Response("Not found", { status: 404 });
}
