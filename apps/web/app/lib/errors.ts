import { TRPCClientError } from "@trpc/client";
import type { AppRouter } from "@rehook/api";

/** The message to show for a failed procedure call (server or browser side). */
export function errorMessage(error: unknown): string {
  if (error instanceof TRPCClientError) return (error as TRPCClientError<AppRouter>).message;
  if (error instanceof Error && "code" in error && typeof (error as { code: unknown }).code === "string") return error.message;
  return "something went wrong: try again";
}

/** Whether a server-side call failed with this tRPC code (NOT_FOUND, UNAUTHORIZED, …). */
export function hasCode(error: unknown, code: string): boolean {
  return typeof error === "object" && error !== null && (error as { code?: unknown }).code === code;
}

/**
 * In a loader: a BAD_REQUEST from a procedure (a filter in the page's URL it refuses, such as
 * a search with a NUL character) becomes the route's 400 page with the procedure's message.
 */
export function throwIfBadRequest(error: unknown): void {
  if (hasCode(error, "BAD_REQUEST") && error instanceof Error) throw new Response(error.message, { status: 400 });
}

/** In a loader or action: a NOT_FOUND from a procedure becomes the route's 404 page. */
export function throwIfNotFound(error: unknown): void {
  if (hasCode(error, "NOT_FOUND")) throw new Response("Not found", { status: 404 });
}
