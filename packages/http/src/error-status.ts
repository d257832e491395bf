import type { ErrorCode } from "@rehook/core";

/** The HTTP status for each use-case error code (one table for every HTTP route). */
export const STATUS_FOR_CODE: Record<ErrorCode, number> = {
  bad_request: 400,
  validation_failed: 400,
  unauthorized: 401,
  forbidden: 403,
  misdirected: 421,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  payload_too_large: 413,
  headers_too_large: 431,
  unsupported_media_type: 415,
  unprocessable: 422,
  rate_limited: 429,
  request_timeout: 408,
  unavailable: 503,
  draining: 503,
  migrations_pending: 503,
  internal: 500,
};
