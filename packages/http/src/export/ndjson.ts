import type { ExportedEvent } from "@rehook/core";
import { toBase64 } from "./base64.js";

/** One NDJSON line (with its "\n"): the event's fields, headers in order, bodies as base64. */
export function ndjsonLine(event: ExportedEvent): string {
  return (
    JSON.stringify({
      id: event.id,
      endpoint_id: event.endpointId,
      method: event.method,
      path: event.path,
      query: event.query,
      headers: event.headers,
      content_type: event.contentType,
      source: event.source,
      event_type: event.eventType,
      status: event.status,
      signature: event.signature,
      received_at: event.receivedAt.toISOString(),
      latency_ms: event.latencyMs,
      error: event.error,
      response: event.response && {
        status: event.response.status,
        headers: event.response.headers,
        body_base64: event.response.body === null ? null : toBase64(event.response.body),
        body_truncated: event.response.truncated,
      },
      body_base64: toBase64(event.body),
    }) + "\n"
  );
}
