import type { IncomingMessage, ServerResponse } from "node:http";
import { isUserError, mediaType } from "@rehook/core";
import type { EventBodyDownload } from "@rehook/services";
import { watchBackpressure, type StreamBounds } from "./stream-backpressure.js";

const OCTET_STREAM = "application/octet-stream";

/** type/subtype, then parameters, in visible ASCII only (a header Node accepts and a browser parses). */
const SAFE_CONTENT_TYPE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+\/[!#$%&'*+.^_`|~0-9A-Za-z-]+(?:[ \t]*;[\x20-\x7e\t]*)?$/;

/**
 * Types a page on this origin could load as a script or a stylesheet, where
 * Content-Disposition does not apply and nosniff lets a matching type through (the
 * dashboard's CSP allows 'self' scripts): anyone can post such a body to a capture URL.
 */
const ACTIVE_TYPES = new Set([
  "application/ecmascript",
  "application/javascript",
  "application/x-ecmascript",
  "application/x-javascript",
  "text/ecmascript",
  "text/javascript",
  "text/javascript1.0",
  "text/javascript1.1",
  "text/javascript1.2",
  "text/javascript1.3",
  "text/javascript1.4",
  "text/javascript1.5",
  "text/jscript",
  "text/livescript",
  "text/x-ecmascript",
  "text/x-javascript",
  "text/css",
]);

/**
 * The Content-Type a raw download is served with: the request's own, as stored, or
 * application/octet-stream when it had none, when it is not a well-formed header value, or
 * when it names a script or stylesheet type.
 */
export function downloadContentType(stored: string | null): string {
  if (!stored || stored.length > 512 || !SAFE_CONTENT_TYPE.test(stored)) return OCTET_STREAM;
  return ACTIVE_TYPES.has(mediaType(stored)) ? OCTET_STREAM : stored;
}

export interface SendEventBodyOptions {
  /** More headers (the API's version). */
  headers?: Record<string, string>;
  bounds?: Partial<StreamBounds>;
  /** "stored": the request's Content-Type (see downloadContentType); "octet-stream" (the default): always application/octet-stream. */
  contentType?: "stored" | "octet-stream";
}

/**
 * Sends a stored body as a download, byte for byte: an attachment (named after its type,
 * event-<id>.json) the browser never renders or sniffs, never cached, and never with a
 * Content-Encoding (a compressed body downloads compressed, as stored: event-<id>.json.gz).
 * The bytes come from the database a chunk at a time, each read only after the socket took
 * the previous chunk, so a 10 MiB body costs one chunk of memory (a client that stops
 * reading is dropped by the bounds). If the event is deleted halfway the connection is cut:
 * the missing bytes against Content-Length tell the client.
 */
export async function sendEventBody(req: IncomingMessage, res: ServerResponse, download: EventBodyDownload, options: SendEventBodyOptions = {}): Promise<void> {
  res.writeHead(200, {
    ...options.headers,
    "content-type": options.contentType === "stored" ? downloadContentType(download.contentType) : OCTET_STREAM,
    "content-length": String(download.sizeBytes),
    "content-disposition": `attachment; filename="${download.fileName.replace(/[^0-9A-Za-z.-]/g, "")}"`,
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
    "cross-origin-resource-policy": "same-origin",
    // Were it ever rendered (an old browser ignoring the attachment), it could run nothing.
    "content-security-policy": "default-src 'none'; sandbox",
  });
  if (req.method === "HEAD") {
    await download.chunks.return(undefined);
    res.end();
    return;
  }
  const watch = watchBackpressure(res, options.bounds);
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
