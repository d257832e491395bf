import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { RouteError } from "../components/ui";
import { loadComparePage } from "../features/compare/compare-data.server";
import { CompareResponsesPage } from "../features/compare/compare-page";

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: data ? `Compare responses · ${data.eventType} · Rehook` : "Compare responses · Rehook" }];

export const loader = (args: LoaderFunctionArgs) => loadComparePage(args);

export default function CompareRoute() {
  return <CompareResponsesPage />;
}

export function ErrorBoundary() {
  return <RouteError />;
}
