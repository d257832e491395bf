import type { createCaller } from "@rehook/api";

/** What the server hands every loader and action (see src/remix-handler.ts). */
export interface DashboardContext {
  /** The tRPC procedures, called in-process with this request's session. */
  caller: ReturnType<typeof createCaller>;
  user: { id: string; email: string } | null;
  /** The capture URL base, for the first-run curl example. */
  baseUrl: string;
}

declare module "@remix-run/node" {
  interface AppLoadContext extends DashboardContext {}
}

declare module "@remix-run/node" {
  interface Future {
    v3_singleFetch: true;
  }
}
