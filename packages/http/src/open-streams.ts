import type { ServerResponse } from "node:http";
import { sendError } from "./respond.js";

/** What a stream request hears once shutdown has begun. */
export const STOPPING_MESSAGE = "The server is stopping and opens no new streams. Reconnect in a few seconds (to another instance, or to this one once it is back).";

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

  /** Ends every open stream (the client sees the response end) and refuses new ones from now on. */
  endAll(): void {
    this.stopping = true;
    for (const res of this.open) if (!res.writableEnded) res.end();
  }
}
