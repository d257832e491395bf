import type { ServerResponse } from "node:http";
import { endStreamBetweenMessages } from "./open-streams.js";
import { PieceWriter, type Piece } from "./piece-writer.js";
import type { StreamBounds } from "./stream-backpressure.js";

/** Pieces of one server-sent event (see PieceWriter). */
export type SsePiece = Piece;

/** Writes server-sent events with backpressure. Writes are serialised: a ping never lands inside a message. */
export class SseWriter extends PieceWriter {
  /** What ends the stream once the message being written is out (shutdown's `retry:`). */
  private lastBytes: string | undefined;

  constructor(res: ServerResponse, bounds: Partial<StreamBounds> = {}, onDrop?: (reason: string) => void) {
    super(res, bounds, onDrop);
    endStreamBetweenMessages(res, (lastBytes) => {
      this.lastBytes = lastBytes;
      if (!this.busy) this.afterMessage();
    });
  }

  /** A comment line that keeps proxies from closing an idle stream; skipped while a message is being written or the client is not reading. */
  ping(): void {
    if (!this.busy && !this.watch.blocked && !this.res.destroyed && !this.res.writableEnded) this.res.write(": ping\n\n");
  }

  protected override afterMessage(): void {
    if (this.lastBytes === undefined || this.res.writableEnded) return;
    if (!this.res.destroyed) this.res.write(this.lastBytes);
    this.res.end();
  }
}
