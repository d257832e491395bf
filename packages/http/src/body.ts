import type { IncomingMessage } from "node:http";

export type BodyResult =
  | { kind: "complete"; body: Buffer }
  | { kind: "too_large" }
  | { kind: "aborted" };

/**
 * Reads a request body into memory, up to `maxBytes`. Stops reading as soon as the
 * declared Content-Length or the bytes received so far exceed the cap (chunked bodies
 * included), so an oversized upload never sits in memory.
 */
export function readBodyCapped(req: IncomingMessage, maxBytes: number): Promise<BodyResult> {
  const declared = req.headers["content-length"];
  if (declared !== undefined && Number(declared) > maxBytes) return Promise.resolve({ kind: "too_large" });

  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    // Listeners stay attached after settling (the request is done with either way): removing
    // them costs more on the capture path than the settled flag that makes them no-ops.
    const settle = (result: BodyResult) => {
      if (settled) return;
      settled = true;
      resolve(result);
    };
    req.on("data", (chunk: Buffer) => {
      if (settled) return;
      received += chunk.byteLength;
      if (received > maxBytes) {
        req.pause();
        settle({ kind: "too_large" });
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => settle({ kind: "complete", body: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received) }));
    req.on("error", () => settle({ kind: "aborted" }));
    req.on("close", () => {
      if (!req.complete) settle({ kind: "aborted" });
    });
  });
}
