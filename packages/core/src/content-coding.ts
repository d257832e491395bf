import type { Transform } from "node:stream";
import { constants, createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from "node:zlib";

/*
 * Undoing a request's Content-Encoding, bounded: the output is read until a cap and the
 * stream destroyed, so a decompression bomb costs the cap in memory and little time.
 * Search (event-search.ts) uses it for the text it compares; no I/O.
 */

/** The Content-Encodings Rehook decodes. */
export const DECODABLE_CODINGS = ["gzip", "x-gzip", "deflate", "br"] as const;

/** The codings of a Content-Encoding value, in the order they were applied (lower case; identity and blanks left out). */
export function contentCodings(contentEncoding: string): string[] {
  return contentEncoding
    .split(",")
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== "" && coding !== "identity");
}

export function isDecodableCoding(coding: string): boolean {
  return (DECODABLE_CODINGS as readonly string[]).includes(coding);
}

/** Whether a "deflate" body has the zlib wrapper RFC 9110 asks for (many senders send raw deflate). */
function hasZlibHeader(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && (bytes[0]! & 0x0f) === 8 && ((bytes[0]! << 8) | bytes[1]!) % 31 === 0;
}

function decompressor(coding: string, input: Uint8Array, partial: boolean): Transform {
  // A cut input is decoded as far as it goes (a sync flush at its end) instead of failing.
  const zlibOptions = partial ? { finishFlush: constants.Z_SYNC_FLUSH } : {};
  if (coding === "gzip" || coding === "x-gzip") return createGunzip(zlibOptions);
  if (coding === "deflate") return hasZlibHeader(input) ? createInflate(zlibOptions) : createInflateRaw(zlibOptions);
  return createBrotliDecompress(partial ? { finishFlush: constants.BROTLI_OPERATION_FLUSH } : {});
}

/** One coding undone, keeping at most `maxBytes` of the output (`cut` when there was more). Rejects on a corrupt stream. */
function undoCoding(coding: string, input: Uint8Array, partial: boolean, maxBytes: number): Promise<{ bytes: Buffer; cut: boolean }> {
  return new Promise((resolve, reject) => {
    const stream = decompressor(coding, input, partial);
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (cut: boolean) => {
      if (settled) return;
      settled = true;
      stream.destroy();
      resolve({ bytes: Buffer.concat(chunks, Math.min(size, maxBytes)), cut });
    };
    stream.on("data", (chunk: Buffer) => {
      if (settled) return;
      chunks.push(chunk);
      size += chunk.length;
      if (size > maxBytes) finish(true);
    });
    stream.on("end", () => finish(false));
    stream.on("error", (error: Error) => {
      if (settled) return;
      settled = true;
      stream.destroy();
      reject(error);
    });
    stream.end(input);
  });
}

/**
 * Codings (as contentCodings gives them) undone in reverse order, at most `maxBytes` of the
 * result. `partial`: the input is only the start of the body. Rejects for a coding not in
 * DECODABLE_CODINGS or a corrupt stream (the error names the coding).
 */
export async function undoContentCodings(body: Uint8Array, codings: readonly string[], options: { partial: boolean; maxBytes: number }): Promise<{ bytes: Buffer; cut: boolean }> {
  let bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  let cut = false;
  let cutInput = options.partial;
  for (const coding of [...codings].reverse()) {
    if (!isDecodableCoding(coding)) throw new Error(`Content-Encoding "${coding}" is not one Rehook decodes (gzip, deflate, br)`);
    try {
      const step = await undoCoding(coding, bytes, cutInput, options.maxBytes);
      bytes = step.bytes;
      cut ||= step.cut;
      cutInput ||= step.cut;
    } catch (error) {
      throw new Error(`The body is not valid ${coding}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return { bytes, cut };
}
