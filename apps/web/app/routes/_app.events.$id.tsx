import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { RouteError } from "../components/ui";
import { loadEventPage } from "../features/event/event-data.server";
import { EventPage } from "../features/event/event-page";

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: data ? `${data.event.eventType} · Activity · Rehook` : "Event · Rehook" }];

export const loader = (args: LoaderFunctionArgs) => loadEventPage(args);

export default function EventRoute() {
  return <EventPage />;
}

export function ErrorBoundary() {
  return <RouteError />;
}
