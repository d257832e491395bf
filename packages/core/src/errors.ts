/** Stable, machine-readable error codes shared by every surface (HTTP, tRPC, CLI). */
export type ErrorCode =
  | "bad_request"
  | "validation_failed"
  | "unauthorized"
  | "forbidden"
  | "misdirected"
  | "not_found"
  | "method_not_allowed"
  | "conflict"
  | "payload_too_large"
  | "headers_too_large"
  | "unsupported_media_type"
  | "unprocessable"
  | "rate_limited"
  | "request_timeout"
  | "unavailable"
  | "draining"
  | "migrations_pending"
  | "internal";

/** The JSON error body every HTTP route answers with. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: unknown };
}

export function errorBody(code: ErrorCode, message: string, details?: unknown): ErrorBody {
  return { error: details === undefined ? { code, message } : { code, message, details } };
}

/**
 * A failure the user can act on; its message is safe to show as is.
 * Anything else that is thrown is a bug and is reported as "internal".
 */
export class UserError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: unknown,
  ) {
    super(message);
    this.name = "UserError";
  }
}

export function isUserError(error: unknown): error is UserError {
  return error instanceof UserError;
}

/** A refusal's wait in seconds, when it says one (`details.retryAfterSeconds`): the Retry-After of its answer. */
export function retryAfterSecondsOf(error: UserError): number | null {
  const seconds = (error.details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
  return typeof seconds === "number" && Number.isFinite(seconds) && seconds > 0 ? Math.ceil(seconds) : null;
}
