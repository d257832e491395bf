/*
 * What the hot paths tell the metrics (GET /metrics), as narrow interfaces: the capture
 * handler, the capture writer, the delivery dispatcher and the chat notifier each take one
 * as an option (absent: nothing is counted), and @rehook/http's RehookMetrics implements
 * them all. Every label value is one of a fixed list here, so label cardinality stays
 * bounded: nothing per event, endpoint or user.
 */

/** Why a request on a capture URL was not stored (the `reason` label of rehook_events_captured_total{outcome="rejected"}). */
export const CAPTURE_REJECTIONS = [
  /** No endpoint has this slug (or the path has none): 404. */
  "not_found",
  /** A `.` or `..` segment in the sub-path: 400. */
  "bad_request",
  /** More than MAX_HEADER_COUNT headers: 431. */
  "headers_too_large",
  /** A body over MAX_PAYLOAD_BYTES: 413. */
  "payload_too_large",
  /** The database could not store it, or the body budget (or the endpoint's share of it) had no room: 503. */
  "unavailable",
  /** The sender's address holds its share of the body budget: 429. */
  "rate_limited",
  /** The body arrived below the minimum rate (MIN_BODY_BYTES_PER_SECOND): 408. */
  "request_timeout",
  /** The sender hung up before its body was complete: no answer. */
  "aborted",
  /** The endpoint rejects unsigned or wrongly signed requests (reject_invalid) and this one was: 401. */
  "invalid_signature",
  /** Sent to the dashboard's host while CAPTURE_BASE_URL serves capture URLs and CAPTURE_ON_DASHBOARD_HOST=false: 421. */
  "misdirected",
] as const;
export type CaptureRejection = (typeof CAPTURE_REJECTIONS)[number];

export interface CaptureMetrics {
  /** A capture answered 200 (its row committed), `seconds` after its headers arrived. */
  captureStored(seconds: number): void;
  captureRejected(reason: CaptureRejection, seconds: number): void;
  /** A stored capture was a duplicate (the endpoint's dedup rule): stored and answered, not forwarded. */
  captureDuplicate(): void;
}

export interface CaptureBatchMetrics {
  /** One group-commit statement stored (or tried to store) this many captures. */
  captureBatch(rows: number): void;
}

export const DELIVERY_OUTCOMES = ["delivered", "failed"] as const;
export type DeliveryAttemptOutcome = (typeof DELIVERY_OUTCOMES)[number];

export interface DeliveryMetrics {
  /** A forwarding attempt whose result was stored; `seconds`: the send's latency. */
  deliveryAttempt(outcome: DeliveryAttemptOutcome, seconds: number): void;
}

/** How a chat provider's answer to a notification post was judged (judgeChatPost's verdicts). */
export const CHAT_POST_RESULTS = ["posted", "retry", "give_up", "rejected", "pause"] as const;
export type ChatPostResult = (typeof CHAT_POST_RESULTS)[number];

export interface ChatMetrics {
  chatPost(result: ChatPostResult): void;
}

/** A database connection pool as read at scrape time. */
export interface PoolStats {
  /** Connections checked out and working. */
  inUse: number;
  /** Connections open and free. */
  idle: number;
  /** Requests waiting for a connection. */
  waiting: number;
  /** Most connections the pool opens. */
  max: number;
}
