import type { IncomingMessage, ServerResponse } from "node:http";
import { isUserError } from "@rehook/core";
import type { EventBodyDownload } from "@rehook/services";
import { watchBackpressure, type StreamBounds } from "./stream-backpressure.js";

/**
 * Sends a stored body as a download, byte for byte: an attachment the browser never renders
 * or sniffs, never cached. The bytes come from the database a chunk at a time, each read
 * only after the socket took the previous chunk, so a 10 MiB body costs one chunk of memory
 * (a client that stops reading is dropped by the bounds). If the event is deleted halfway
 * the connection is cut: the missing bytes against Content-Length tell the client.
 */
export async function sendEventBody(
  req: IncomingMessage,
  res: ServerResponse,
  eventId: string,
  download: EventBodyDownload,
  headers: Record<string, string> = {},
  bounds: Partial<StreamBounds> = {},
): Promise<void> {
  res.writeHead(200, {
    ...headers,
    "content-type": "application/octet-stream",
    "content-length": String(download.sizeBytes),
    "content-disposition": `attachment; filename="event-${eventId.replace(/[^0-9A-Za-z-]/g, "")}.bin"`,
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    "cross-origin-resource-policy": "same-origin",
  });
  if (req.method === "HEAD") {
    await download.chunks.return(undefined);
    res.end();
    return;
  }
  const watch = watchBackpressure(res, bounds);
  try {
    for await (const chunk of download.chunks) {
      if (res.destroyed) return;
      if (!res.write(chunk)) await watch.drained();
    }
  } catch (error) {
    res.destroy();
    // A deletion meanwhile is expected; anything else is a bug and goes to the request log.
    if (!isUserError(error)) throw error;
    return;
  }
  res.end();
}
