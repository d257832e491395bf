import { PieceWriter, type Piece } from "./piece-writer.js";

/** Pieces of one server-sent event (see PieceWriter). */
export type SsePiece = Piece;

/** Writes server-sent events with backpressure. Writes are serialised: a ping never lands inside a message. */
export class SseWriter extends PieceWriter {
  /** A comment line that keeps proxies from closing an idle stream; skipped while a message is being written or the client is not reading. */
  ping(): void {
    if (!this.busy && !this.watch.blocked && !this.res.destroyed && !this.res.writableEnded) this.res.write(": ping\n\n");
  }
}
