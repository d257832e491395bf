import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { RouteError } from "../components/ui";
import { ApiDocsPage } from "../features/api-docs/api-docs-page";
import { readApiReference, type OperationView } from "../lib/openapi";
import { requireUser } from "../lib/session.server";

export const meta: MetaFunction = () => [{ title: "API reference · Rehook" }];

type Reference =
  | { state: "ready"; baseUrl: string; version: string; operations: OperationView[] }
  | { state: "disabled"; baseUrl: string }
  | { state: "error"; baseUrl: string; message: string };

/** The OpenAPI document is built in this process (never fetched over HTTP); null means PUBLIC_API_ENABLED=false. */
export function loader({ context, request }: LoaderFunctionArgs): Reference {
  requireUser(context, request);
  // request.url's origin is one of our configured origins (src/remix-handler.ts), never the client's Host.
  const baseUrl = `${new URL(request.url).origin}/api/v1`;
  const document = context.apiDocument();
  if (!document) return { state: "disabled", baseUrl };
  try {
    const reference = readApiReference(document, baseUrl);
    return { state: "ready", baseUrl, version: reference.version, operations: reference.operations };
  } catch (error) {
    return { state: "error", baseUrl, message: `the API document could not be read: ${error instanceof Error ? error.message : String(error)}` };
  }
}

export default function ApiDocsRoute() {
  return <ApiDocsPage />;
}

export function ErrorBoundary() {
  return <RouteError />;
}
