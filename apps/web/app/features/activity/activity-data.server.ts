import type { LoaderFunctionArgs } from "@remix-run/node";
import { throwIfBadRequest } from "../../lib/errors";
import { isEventStatus } from "../../lib/format";
import { readEventListFilter } from "../../lib/list-filter";
import { requireUser } from "../../lib/session.server";
import { listInput } from "./activity-filter";

/** The Activity page's loader (routes/_app.events._index.tsx): the filtered feed's first page, the endpoints and the volume strip. */
export async function loadActivityPage({ context, request }: LoaderFunctionArgs) {
  requireUser(context, request);
  const filter = readEventListFilter(request, isEventStatus);
  const [page, endpoints, volume] = await Promise.all([
    context.caller.events.list({ ...listInput(filter), limit: 50 }).catch((error: unknown) => {
      throwIfBadRequest(error);
      throw error;
    }),
    context.caller.endpoints.list(),
    // The strip is not worth failing the page for: without it the feed shows alone. It follows the endpoint filter.
    context.caller.events.volume({ range: "day", ...(filter.endpointId ? { endpointId: filter.endpointId } : {}) }).catch(() => null),
  ]);
  return {
    filter,
    // The export links' time range starts from here (the server's clock, so the page hydrates as rendered).
    renderedAt: Date.now(),
    volume,
    events: page.events,
    nextCursor: page.nextCursor,
    endpoints: endpoints.map((endpoint) => ({ id: endpoint.id, name: endpoint.name, webhookUrl: endpoint.webhookUrl, destinationUrl: endpoint.destinationUrl })),
  };
}
