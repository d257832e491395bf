import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { isActivityRange, type ActivityRange } from "@rehook/core/browser";
import { RouteError } from "../components/ui";
import { endpointAction } from "../features/endpoint/endpoint-action.server";
import { EndpointPage } from "../features/endpoint/endpoint-page";
import { throwIfNotFound } from "../lib/errors";
import { requireUser } from "../lib/session.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: data ? `${data.endpoint.name} · Rehook` : "Endpoint · Rehook" }];

export async function loader({ request, context, params }: LoaderFunctionArgs) {
  requireUser(context, request);
  const id = params.id ?? "";
  const range = chartRange(request);
  try {
    const [endpoint, recent, activity] = await Promise.all([
      context.caller.endpoints.get({ id }),
      context.caller.events.list({ endpointId: id, limit: 5 }).catch(() => ({ events: [], nextCursor: null })),
      // The charts are not worth failing the page for: without them the card says so.
      context.caller.endpoints.activity({ id, range }).catch(() => null),
    ]);
    return { endpoint, recent: recent.events, more: recent.nextCursor !== null, range, activity };
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

export async function action(args: ActionFunctionArgs) {
  return endpointAction(args);
}

export default function EndpointRoute() {
  return <EndpointPage />;
}

export function ErrorBoundary() {
  return <RouteError />;
}
