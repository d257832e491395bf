import type { HeaderList } from "@rehook/core";

/** The parts of a captured request that are sent again: forwarded, replayed, streamed. */
export interface CapturedRequestFields {
  id: string;
  endpointId: string;
  method: string;
  path: string;
  query: string;
  headers: HeaderList;
  body: Buffer;
}

/** The same, as a query returns it (events aliased `e`). */
export interface CapturedRequestRow {
  id: string;
  endpoint_id: string;
  method: string;
  path: string;
  query: string;
  /** json columns arrive parsed from pg, as text from MikroORM's raw execute. */
  headers: HeaderList | string;
  body: Buffer;
}

export const CAPTURED_REQUEST_COLUMNS = "e.id, e.endpoint_id, e.method, e.path, e.query, e.headers, e.body";

export function capturedRequest(row: CapturedRequestRow): CapturedRequestFields {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    method: row.method,
    path: row.path,
    query: row.query,
    headers: typeof row.headers === "string" ? (JSON.parse(row.headers) as HeaderList) : row.headers,
    body: row.body,
  };
}
