import type { LoaderFunctionArgs, SerializeFrom } from "@remix-run/node";
import { isActivityRange, type ActivityRange } from "@rehook/core/browser";
import { throwIfNotFound } from "../../lib/errors";
import { requireUser } from "../../lib/session.server";

/** Events the Recent events card shows. */
const RECENT_EVENTS = 5;

/** The endpoint page's loader (routes/_app.endpoints.$id.tsx): the endpoint, its destinations, its recent events and its charts. */
export async function loadEndpointPage({ request, context, params }: LoaderFunctionArgs) {
  requireUser(context, request);
  const id = params.id ?? "";
  const range = chartRange(request);
  try {
    const [endpoint, destinations, recent, activity] = await Promise.all([
      context.caller.endpoints.get({ id }),
      context.caller.destinations.list({ endpointId: id }),
      context.caller.events.list({ endpointId: id, limit: RECENT_EVENTS }).catch(() => ({ events: [], nextCursor: null })),
      // The charts are not worth failing the page for: without them the card says so.
      context.caller.endpoints.activity({ id, range }).catch(() => null),
    ]);
    return { endpoint, destinations, recent: recent.events, more: recent.nextCursor !== null, range, activity };
  } catch (error) {
    throwIfNotFound(error);
    throw error;
  }
}

/** The charts' range from ?range= (a day unless it names another). */
function chartRange(request: Request): ActivityRange {
  const value = new URL(request.url).searchParams.get("range");
  return isActivityRange(value) ? value : "day";
}

/** What the endpoint page's loader answers, as the page and its panels read it. */
export type EndpointPageData = SerializeFrom<typeof loadEndpointPage>;
