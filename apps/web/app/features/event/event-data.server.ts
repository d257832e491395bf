import type { LoaderFunctionArgs, SerializeFrom } from "@remix-run/node";
import { curlInBody } from "../../components/inspector/payload-inspector";
import type { PayloadData } from "../../components/payload";
import { throwIfNotFound } from "../../lib/errors";
import { replayChoices } from "../../lib/replay";
import { requireUser } from "../../lib/session.server";
import { HISTORY_LIMIT } from "./history-limit";

/** The server's PayloadView without the parsed value (the page only needs the text). */
function slim(payload: { kind: "json"; pretty: string } | { kind: "text"; text: string } | { kind: "binary"; hex: string; size: number }): PayloadData {
  if (payload.kind === "json") return { kind: "json", pretty: payload.pretty };
  if (payload.kind === "text") return { kind: "text", text: payload.text };
  return { kind: "binary", hex: payload.hex, size: payload.size };
}

/** The event page's loader (routes/_app.events.$id.tsx): one event, its endpoint's state and its replays. */
export async function loadEventPage({ request, context, params }: LoaderFunctionArgs) {
  requireUser(context, request);
  let event;
  try {
    event = await context.caller.events.get({ id: params.id ?? "" });
  } catch (error) {
    throwIfNotFound(error);
    throw error;
  }
  // The request body travels once, as `body` (the inspector's view); `payload` is left out.
  const { payload: _payload, body, response, ...rest } = event;
  // The endpoint as it is now: replays go to its current destinations and staging host. Which
  // deliveries are paused the event says itself (deliveries[].status).
  const [endpoint, destinations, history] = await Promise.all([
    context.caller.endpoints.get({ id: event.endpointId }).catch(() => null),
    // Where a replay may go.
    context.caller.destinations.list({ endpointId: event.endpointId }).catch(() => []),
    context.caller.replays.list({ eventId: event.id, limit: HISTORY_LIMIT }).catch(() => ({ replays: [], nextCursor: null })),
  ]);
  return {
    // A whole text body is in `body` already: the page builds the curl command from it instead.
    event: { ...rest, curl: curlInBody(rest.bodyTruncated, body) ? null : rest.curl },
    replayChoices: replayChoices({
      destinations: destinations.map(({ id, name, url }) => ({ id, name, url })),
      // As the server plans a replay: a paused delivery is a pending one (its row says so), and
      // one to a destination removed since (no id) has nowhere to go.
      deliveries: event.deliveries.flatMap(({ destinationId, status, resolution }) =>
        destinationId === null || status === "filtered" ? [] : [{ destinationId, status: status === "paused" ? ("pending" as const) : status, resolved: resolution !== null }],
      ),
      filtered: event.deliveries.flatMap(({ destinationId, status }) => (destinationId !== null && status === "filtered" ? [destinationId] : [])),
      paused: event.deliveries.flatMap(({ destinationId, status }) => (destinationId !== null && status === "paused" ? [destinationId] : [])),
      stagingHost: endpoint?.stagingHost ?? null,
      path: event.path,
      query: event.query,
    }),
    history: history.replays,
    moreHistory: history.nextCursor !== null,
    body,
    requestPath: `/api/webhook/${event.endpointSlug}${event.path}${event.query ? `?${event.query}` : ""}`,
    response: response && {
      status: response.status,
      headers: response.headers,
      truncated: response.truncated,
      latencyMs: response.latencyMs,
      error: response.error,
      payload: response.payload ? slim(response.payload) : null,
    },
  };
}

/** What the event page's loader answers, as the page and its panels read it. */
export type EventPageData = SerializeFrom<typeof loadEventPage>;
