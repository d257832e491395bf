import type { ServerResponse } from "node:http";
import type { ExportedEvent, ExportFormat } from "@rehook/core";
import { harEntry, harStart, HAR_END, ndjsonLine } from "./export/index.js";
import { PieceWriter } from "./piece-writer.js";
import type { StreamBounds } from "./stream-backpressure.js";

const CONTENT_TYPES: Record<ExportFormat, string> = { ndjson: "application/x-ndjson; charset=utf-8", har: "application/json; charset=utf-8" };

export interface ExportOptions {
  /** The capture URLs' origin (HAR request URLs). */
  baseUrl: string;
  bounds?: Partial<StreamBounds>;
  onDrop?: (reason: string) => void;
  headers?: Record<string, string>;
}

/**
 * Streams an export as an attachment, one event at a time: the next event is asked for only
 * once the socket took the last one's pieces, so memory holds one read of events whatever
 * their count, and a client that stops reading stops the reading (and is dropped past the
 * bounds; a client that leaves ends it the same way). The status line is sent before the first event: a failure later cuts the
 * download short (no final newline or closing "]}}"), which clients see as incomplete.
 */
export async function sendEventExport(res: ServerResponse, events: AsyncGenerator<ExportedEvent>, format: ExportFormat, options: ExportOptions): Promise<void> {
  res.writeHead(200, {
    "content-type": CONTENT_TYPES[format],
    "content-disposition": `attachment; filename="rehook-events.${format === "har" ? "har" : "ndjson"}"`,
    "cache-control": "no-store",
    "x-accel-buffering": "no",
    ...options.headers,
  });
  const writer = new PieceWriter(res, options.bounds, options.onDrop);
  try {
    if (format === "har" && !(await writer.send([harStart("1")]))) return;
    let first = true;
    for await (const event of events) {
      const text = format === "ndjson" ? ndjsonLine(event) : `${first ? "" : ","}${JSON.stringify(harEntry(event, options.baseUrl))}`;
      first = false;
      if (!(await writer.send([text]))) return;
    }
    if (format === "har") await writer.send([HAR_END]);
    res.end();
  } catch (error) {
    // Cut short, not ended: an export that ends cleanly is a whole one.
    res.destroy();
    throw error;
  } finally {
    await events.return(undefined);
  }
}
