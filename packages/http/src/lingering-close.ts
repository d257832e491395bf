import type { IncomingMessage, ServerResponse } from "node:http";

/** How long, at most, a refused request's remaining bytes are read and dropped before its connection closes. */
export const LINGER_MAX_MS = 5_000;
/** A sender that sends nothing for this long is done: the connection closes then. */
export const LINGER_IDLE_MS = 1_000;
/**
 * How many bytes, at most. More than a sender's socket buffers hold (about 4 MiB on Linux),
 * so a body a few MiB over a cap still ends in an answer the sender reads.
 */
export const LINGER_MAX_BYTES = 16 * 1024 * 1024;

export interface LingerBounds {
  maxMs: number;
  idleMs: number;
  maxBytes: number;
}

const DEFAULT_BOUNDS: LingerBounds = { maxMs: LINGER_MAX_MS, idleMs: LINGER_IDLE_MS, maxBytes: LINGER_MAX_BYTES };

/**
 * Ends `res`, whose answer has been written but not ended, once the request has arrived in
 * full: its remaining bytes are read and dropped, never kept. Closing a socket with unread
 * bytes resets it, and a sender still writing would see the reset instead of our answer
 * (nginx's lingering close). Past the bounds the answer ends at once and node closes the
 * connection (the answer says Connection: close).
 */
export function endAfterRequest(res: ServerResponse, bounds: LingerBounds = DEFAULT_BOUNDS): void {
  const req: IncomingMessage = res.req;
  if (req.complete || req.destroyed) {
    res.end();
    return;
  }
  let dropped = 0;
  const finish = () => {
    clearTimeout(deadline);
    clearTimeout(idle);
    req.off("data", drop);
    req.off("end", finish);
    req.off("error", finish);
    res.off("close", finish);
    if (!res.writableEnded) res.end();
  };
  const drop = (chunk: Buffer) => {
    dropped += chunk.byteLength;
    if (dropped > bounds.maxBytes) finish();
    else idle.refresh();
  };
  const deadline = setTimeout(finish, bounds.maxMs);
  const idle = setTimeout(finish, bounds.idleMs);
  req.on("data", drop);
  req.once("end", finish);
  req.once("error", finish);
  res.once("close", finish);
  req.resume();
}
