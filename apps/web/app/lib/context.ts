import type { createCaller } from "@rehook/api";

/** What the server hands every loader and action (see src/remix-handler.ts). */
export interface DashboardContext {
  /** The tRPC procedures, called in-process with this request's session. */
  caller: ReturnType<typeof createCaller>;
  user: { id: string; email: string } | null;
  /** The capture URL base, for the first-run curl example. */
  baseUrl: string;
  /** This response's Content-Security-Policy nonce (entry.server puts it on Remix's inline scripts). */
  cspNonce: string;
  /** The public API's OpenAPI document, built in-process; null when PUBLIC_API_ENABLED=false. */
  apiDocument: () => Record<string, unknown> | null;
}

declare module "@remix-run/node" {
  interface AppLoadContext extends DashboardContext {}
}

declare module "@remix-run/node" {
  interface Future {
    v3_singleFetch: true;
  }
}
