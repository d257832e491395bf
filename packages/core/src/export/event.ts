import type { HeaderList } from "../headers.js";

/** One event as an export writes it: the whole request and the destination's stored answer. */
export interface ExportedEvent {
  id: string;
  endpointId: string;
  endpointSlug: string;
  method: string;
  /** The sub-path after the capture URL ("" for none) and the query string without "?". */
  path: string;
  query: string;
  /** In the order they arrived. */
  headers: HeaderList;
  body: Uint8Array;
  contentType: string | null;
  source: string;
  eventType: string;
  status: string;
  /** What the endpoint's signature check found (null: it checks none). */
  signature: string | null;
  receivedAt: Date;
  /** What the destination answered (null when nothing was forwarded or no answer came). */
  response: { status: number; headers: HeaderList; body: Uint8Array | null; truncated: boolean } | null;
  latencyMs: number | null;
  error: string | null;
}

export const EXPORT_FORMATS = ["ndjson", "har"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
