import type { ServerResponse } from "node:http";
import { watchBackpressure, type BackpressureWatch, type StreamBounds } from "./stream-backpressure.js";

/** Largest piece written at once: a 10 MiB event goes out in pieces, each after the socket took the last. */
const PIECE_CHARS = 64 * 1024;
/** Body bytes base64-encoded per piece: a multiple of 3, so the pieces join into one valid base64 text. */
const BASE64_SLICE_BYTES = 48 * 1024;

/** Where a piece of text starting at `at` ends: never between the two halves of a surrogate pair (each piece is encoded to UTF-8 alone). */
function pieceEnd(text: string, at: number): number {
  const end = Math.min(at + PIECE_CHARS, text.length);
  const last = text.charCodeAt(end - 1);
  return end < text.length && last >= 0xd800 && last <= 0xdbff ? end - 1 : end;
}

/** Text pieces of one message; a Buffer is written as its base64 text, a slice at a time. */
export type Piece = string | { base64: Uint8Array };

/**
 * Writes text with backpressure: a message goes out in pieces of at most 64 KiB, and the
 * next piece waits until the socket took the previous one, so a client that reads slowly
 * holds at most one piece in this process (and one that stops reading is dropped by the
 * watch's bounds). Used by the event streams and the exports.
 */
export class PieceWriter {
  protected readonly watch: BackpressureWatch;
  protected busy = false;

  constructor(
    protected readonly res: ServerResponse,
    bounds: Partial<StreamBounds> = {},
    onDrop?: (reason: string) => void,
  ) {
    this.watch = watchBackpressure(res, bounds, onDrop);
  }

  /** Sends one message; resolves when its last piece was handed to the socket (false once the client is gone). */
  async send(pieces: Piece[]): Promise<boolean> {
    this.busy = true;
    try {
      for (const piece of pieces) {
        if (typeof piece === "string") {
          for (let at = 0; at < piece.length; ) {
            const end = pieceEnd(piece, at);
            if (!(await this.write(piece.slice(at, end)))) return false;
            at = end;
          }
        } else {
          for (let at = 0; at < piece.base64.byteLength; at += BASE64_SLICE_BYTES) {
            const slice = Buffer.from(piece.base64.buffer, piece.base64.byteOffset + at, Math.min(BASE64_SLICE_BYTES, piece.base64.byteLength - at));
            if (!(await this.write(slice.toString("base64")))) return false;
          }
        }
      }
      return !this.res.destroyed && !this.res.writableEnded;
    } finally {
      this.busy = false;
      this.afterMessage();
    }
  }

  /** Called between two messages (a subclass may end the stream there). */
  protected afterMessage(): void {}

  protected async write(text: string): Promise<boolean> {
    // Ended from outside (shutdown ends open streams): a write now would be an error on the response.
    if (this.res.destroyed || this.res.writableEnded) return false;
    if (!this.res.write(text)) await this.watch.drained();
    return !this.res.destroyed;
  }
}
