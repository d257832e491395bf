import type { ServerResponse } from "node:http";
import { sendError } from "./respond.js";

/** What a stream request hears once shutdown has begun. */
export const STOPPING_MESSAGE = "The server is stopping and opens no new streams. Reconnect in a few seconds (to another instance, or to this one once it is back).";

/** How long a client waits before it reconnects to a stream (the `retry:` each stream starts with). */
export const STREAM_RETRY_MS = 2_000;

/** Ends one stream with these last bytes, once the message it is writing (if any) is out. */
type StreamEnder = (lastBytes: string) => void;
const enders = new WeakMap<ServerResponse, StreamEnder>();

/** A writer that sends a message in several writes says how its stream ends between two messages. */
export function endStreamBetweenMessages(res: ServerResponse, ender: StreamEnder): void {
  enders.set(res, ender);
}

/**
 * The long-lived responses (event streams) of one handler. They never end by themselves, so
 * shutdown ends them the moment it begins (drain, not the closing of the port: a client must
 * not hold the process for the whole drain), and from then on refuses new ones with 503: a
 * client that reconnects at once would otherwise get a stream nobody ends.
 */
export class OpenStreams {
  private readonly open = new Set<ServerResponse>();
  private stopping = false;

  /**
   * Registers `res` as an open stream, or, once shutdown has begun, answers 503 `unavailable`
   * (and closes the connection) and returns false.
   */
  admit(res: ServerResponse, headers: Record<string, string> = {}): boolean {
    if (this.stopping) {
      sendError(res, 503, "unavailable", STOPPING_MESSAGE, { ...headers, connection: "close", "retry-after": "5" });
      return false;
    }
    this.open.add(res);
    res.once("close", () => this.open.delete(res));
    return true;
  }

  /**
   * Ends every open stream (the client sees the response end) and refuses new ones from now on.
   * Each stream's last words are `retry: reconnectAfterMs`: a standard EventSource reconnects
   * that much later, and never again after a non-200 answer, so the shutdown makes it wait
   * until this server no longer listens (a refused connection is retried) instead of landing
   * in the drain and getting 503.
   */
  endAll(reconnectAfterMs = STREAM_RETRY_MS): void {
    this.stopping = true;
    const lastBytes = `retry: ${reconnectAfterMs}\n\n`;
    for (const res of this.open) {
      if (res.writableEnded) continue;
      const ender = enders.get(res);
      if (ender) {
        ender(lastBytes);
      } else {
        // A stream that started (tRPC's) has written whole messages only.
        if (res.headersSent) res.write(lastBytes);
        res.end();
      }
    }
  }
}
