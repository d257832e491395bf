import type { IncomingMessage, ServerResponse } from "node:http";
import type { ByteBudget } from "@rehook/core";
import { BODY_BUDGET_MESSAGE, BODY_BUDGET_RETRY_AFTER_SECONDS, requestBodyBudget } from "./body-budget.js";
import { sendErrorAndClose } from "./respond.js";

export type BodyResult =
  /** `release` gives the body's bytes back to the budget: call it once the body is no longer needed. */
  | { kind: "complete"; body: Buffer; release(): void }
  | { kind: "too_large" }
  /** The process's body budget had no room for it (MAX_BUFFERED_BODY_BYTES). */
  | { kind: "over_budget" }
  | { kind: "aborted" };

const TOO_LARGE: BodyResult = { kind: "too_large" };
const OVER_BUDGET: BodyResult = { kind: "over_budget" };
const ABORTED: BodyResult = { kind: "aborted" };

/**
 * Reads a request body into memory, up to `maxBytes` and within `budget`. Stops reading as soon
 * as the declared Content-Length or the bytes received so far exceed the cap (chunked bodies
 * included), so an oversized upload never sits in memory. A declared length is taken from the
 * budget whole before any byte is read; a chunked body takes its bytes as they arrive.
 */
export function readBodyCapped(req: IncomingMessage, maxBytes: number, budget: ByteBudget = requestBodyBudget): Promise<BodyResult> {
  const header = req.headers["content-length"];
  const declared = header === undefined ? undefined : Number(header);
  if (declared !== undefined && declared > maxBytes) return Promise.resolve(TOO_LARGE);
  const share = budget.share();
  if (declared !== undefined && declared > 0 && !share.grow(declared)) return Promise.resolve(OVER_BUDGET);

  return new Promise((resolve) => {
    let chunks: Buffer[] = [];
    let received = 0;
    let done: ((result: BodyResult) => void) | undefined = resolve;
    // Listeners stay attached after settling (the request is done with either way): removing
    // them costs more on the capture path than the checks that make them no-ops. Settling
    // drops what they could reach (the chunks, the promise and its result), so a body is not
    // kept in memory by its request while an answer waits (a custom response's delay).
    const settle = (result: BodyResult) => {
      const resolveNow = done;
      if (!resolveNow) return;
      done = undefined;
      chunks = [];
      if (result.kind !== "complete") share.release();
      resolveNow(result);
    };
    req.on("data", (chunk: Buffer) => {
      if (!done) return;
      received += chunk.byteLength;
      if (received > maxBytes || (declared === undefined && !share.grow(chunk.byteLength))) {
        req.pause();
        settle(received > maxBytes ? TOO_LARGE : OVER_BUDGET);
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (!done) return;
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received);
      settle({ kind: "complete", body, release: () => share.release() });
    });
    req.on("error", () => settle(ABORTED));
    req.on("close", () => {
      if (!req.complete) settle(ABORTED);
    });
  });
}

/** Answers a body that was not taken in (413 or 503), then closes once the rest is dropped. */
export function refuseBody(res: ServerResponse, kind: "too_large" | "over_budget", tooLarge: string, headers: Record<string, string> = {}): void {
  if (kind === "too_large") sendErrorAndClose(res, 413, "payload_too_large", tooLarge, headers);
  else sendErrorAndClose(res, 503, "unavailable", BODY_BUDGET_MESSAGE, { ...headers, "retry-after": String(BODY_BUDGET_RETRY_AFTER_SECONDS) });
}

/**
 * The request's body within `maxBytes`, or undefined when there is none to act on: the client
 * hung up, or the body was refused (413 too large, 503 no room in the body budget) and the
 * rest is read and dropped. The body's bytes go back to the budget when the answer is done.
 */
export async function readBodyOrRefuse(
  req: IncomingMessage,
  res: ServerResponse,
  maxBytes: number,
  options: { what?: string; headers?: Record<string, string>; budget?: ByteBudget } = {},
): Promise<Buffer | undefined> {
  const read = await readBodyCapped(req, maxBytes, options.budget);
  if (read.kind === "complete") {
    if (res.closed) read.release();
    else res.once("close", read.release);
    return read.body;
  }
  if (read.kind !== "aborted") refuseBody(res, read.kind, `${options.what ?? "the body"} exceeds the limit of ${maxBytes} bytes`, options.headers);
  return undefined;
}
