import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { RouteError } from "../components/ui";
import { endpointAction } from "../features/endpoint/endpoint-action.server";
import { loadEndpointPage } from "../features/endpoint/endpoint-data.server";
import { EndpointPage } from "../features/endpoint/endpoint-page";

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: data ? `${data.endpoint.name} · Rehook` : "Endpoint · Rehook" }];

export const loader = (args: LoaderFunctionArgs) => loadEndpointPage(args);

export const action = (args: ActionFunctionArgs) => endpointAction(args);

export default function EndpointRoute() {
  return <EndpointPage />;
}

export function ErrorBoundary() {
  return <RouteError />;
}
