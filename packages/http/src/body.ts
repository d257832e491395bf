import type { IncomingMessage, ServerResponse } from "node:http";
import { sendErrorAndClose } from "./respond.js";

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

/**
 * The request's body within `maxBytes`, or undefined when there is none to act on: the client
 * hung up, or the body was too large and has been answered 413 (the rest is not read).
 */
export async function readBodyOrRefuse(
  req: IncomingMessage,
  res: ServerResponse,
  maxBytes: number,
  options: { what?: string; headers?: Record<string, string> } = {},
): Promise<Buffer | undefined> {
  const read = await readBodyCapped(req, maxBytes);
  if (read.kind === "complete") return read.body;
  if (read.kind === "too_large") {
    sendErrorAndClose(res, 413, "payload_too_large", `${options.what ?? "the body"} exceeds the limit of ${maxBytes} bytes`, options.headers);
  }
  return undefined;
}
