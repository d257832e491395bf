import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { RouteError } from "../components/ui";
import { loadApiDocs } from "../features/api-docs/api-docs-data.server";
import { ApiDocsPage } from "../features/api-docs/api-docs-page";

export const meta: MetaFunction = () => [{ title: "API reference · Rehook" }];

export const loader = (args: LoaderFunctionArgs) => loadApiDocs(args);

export default function ApiDocsRoute() {
  return <ApiDocsPage />;
}

export function ErrorBoundary() {
  return <RouteError />;
}
