import type { LoaderFunctionArgs } from "@remix-run/node";
import { readApiReference, type OperationView } from "../../lib/openapi";
import { requireUser } from "../../lib/session.server";

type Reference =
  | { state: "ready"; baseUrl: string; version: string; operations: OperationView[] }
  | { state: "disabled"; baseUrl: string }
  | { state: "error"; baseUrl: string; message: string };

/**
 * The API reference page's loader (routes/_app.api-docs.tsx). The OpenAPI document is built in
 * this process (never fetched over HTTP); null means PUBLIC_API_ENABLED=false.
 */
export function loadApiDocs({ context, request }: LoaderFunctionArgs): Reference {
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
