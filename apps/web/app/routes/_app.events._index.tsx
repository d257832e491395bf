import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { RouteError } from "../components/ui";
import { loadActivityPage } from "../features/activity/activity-data.server";
import { ActivityPage } from "../features/activity/activity-page";

export const meta: MetaFunction = () => [{ title: "Activity · Rehook" }];

export const loader = (args: LoaderFunctionArgs) => loadActivityPage(args);

export default function ActivityRoute() {
  return <ActivityPage />;
}

export function ErrorBoundary() {
  return <RouteError />;
}
