import type { IncomingMessage, ServerResponse } from "node:http";
import { errorBody, OPEN_UPLOAD_BYTES, type BodyRefusal, type BodySlice } from "@rehook/core";
import { BODY_ADDRESS_MESSAGE, BODY_BUDGET_MESSAGE, BODY_BUDGET_RETRY_AFTER_SECONDS, BODY_TARGET_MESSAGE, defaultRequestBodies } from "./body-budget.js";
import type { OpenUpload, RequestBodies } from "./request-bodies.js";
import { sendErrorAndClose } from "./respond.js";

export type BodyResult =
  /** `release` gives the body's bytes back to the budget: call it once the body is no longer needed. */
  | { kind: "complete"; body: Buffer; release(): void }
  | { kind: "too_large" }
  /** A limit of the body budget had no room for the bytes that arrived (MAX_BUFFERED_BODY_BYTES, its slices and caps). */
  | { kind: "over_budget"; refusal: BodyRefusal }
  /** The upload fell behind the minimum rate (MIN_BODY_BYTES_PER_SECOND after BODY_RATE_GRACE_MS). */
  | { kind: "too_slow" }
  | { kind: "aborted" };

export type BodyRefused = Exclude<BodyResult, { kind: "complete" } | { kind: "aborted" }>;

/** Where a route's bodies are counted: the server's bodies, the slice, and for a capture its endpoint. */
export interface BodyIntake {
  /** Unset: the process's default (routes built on their own, in tests). */
  bodies?: RequestBodies;
  /** Unset: the dashboard's slice. */
  slice?: BodySlice;
  target?: string;
}

const TOO_LARGE: BodyResult = { kind: "too_large" };
const TOO_SLOW: BodyResult = { kind: "too_slow" };
const ABORTED: BodyResult = { kind: "aborted" };
const OVER: Record<BodyRefusal, BodyResult> = {
  address: { kind: "over_budget", refusal: "address" },
  target: { kind: "over_budget", refusal: "target" },
  slice: { kind: "over_budget", refusal: "slice" },
};

/** Whether the request carries a body at all: a positive length, or chunks. */
function expectsBody(req: IncomingMessage, declared: number | undefined): boolean {
  return declared === undefined ? req.headers["transfer-encoding"] !== undefined : declared > 0;
}

/**
 * Reads a request body into memory, up to `maxBytes` and within the body budget. Stops
 * reading as soon as the declared Content-Length or the bytes received so far exceed the cap
 * (chunked bodies included), so an oversized upload never sits in memory. The budget is taken
 * as bytes arrive, never as a length is declared: an open upload is charged OPEN_UPLOAD_BYTES
 * up front and grows past it only with what it sent, and one that falls behind the minimum
 * rate is ended (too_slow).
 */
export function readBodyCapped(req: IncomingMessage, maxBytes: number, intake: BodyIntake = {}): Promise<BodyResult> {
  const header = req.headers["content-length"];
  const declared = header === undefined ? undefined : Number(header);
  if (declared !== undefined && declared > maxBytes) return Promise.resolve(TOO_LARGE);
  const bodies = intake.bodies ?? defaultRequestBodies();
  const hold = bodies.open(req, intake.slice ?? "dashboard", intake.target);
  const opening = expectsBody(req, declared) ? hold.reserve(OPEN_UPLOAD_BYTES) : null;
  if (opening) return Promise.resolve(OVER[opening]);

  return new Promise((resolve) => {
    let chunks: Buffer[] = [];
    let done: ((result: BodyResult) => void) | undefined = resolve;
    const upload: OpenUpload = {
      startedAt: bodies.now(),
      received: 0,
      tooSlow: () => {
        req.pause();
        settle(TOO_SLOW);
      },
    };
    const unwatch = hold.bytes > 0 ? bodies.watch(upload) : () => {};
    // Listeners stay attached after settling (the request is done with either way): removing
    // them costs more on the capture path than the checks that make them no-ops. Settling
    // drops what they could reach (the chunks, the promise and its result), so a body is not
    // kept in memory by its request while an answer waits (a custom response's delay).
    const settle = (result: BodyResult) => {
      const resolveNow = done;
      if (!resolveNow) return;
      done = undefined;
      chunks = [];
      unwatch();
      if (result.kind !== "complete") hold.release();
      resolveNow(result);
    };
    req.on("data", (chunk: Buffer) => {
      if (!done) return;
      upload.received += chunk.byteLength;
      const refused = upload.received > maxBytes ? TOO_LARGE : overBudget(hold.reserve(upload.received));
      if (refused) {
        req.pause();
        settle(refused);
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => {
      if (!done) return;
      const received = upload.received;
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received);
      // Complete: what stays held is the body itself, not the opening charge.
      hold.shrinkTo(received);
      settle({ kind: "complete", body, release: () => hold.release() });
    });
    req.on("error", () => settle(ABORTED));
    req.on("close", () => {
      if (!req.complete) settle(ABORTED);
    });
  });
}

function overBudget(refusal: BodyRefusal | null): BodyResult | undefined {
  return refusal === null ? undefined : OVER[refusal];
}

/**
 * Answers a body that was not taken in, then closes: 413 (too large), 429 (its address holds
 * its share), 503 (the endpoint or the server has no room), each read and dropped before the
 * close, or 408 (too slow: closed once the answer is out, since waiting for the rest is what
 * it would cost).
 */
export function refuseBody(res: ServerResponse, refused: BodyRefused, tooLarge: string, headers: Record<string, string> = {}): void {
  const retry = { ...headers, "retry-after": String(BODY_BUDGET_RETRY_AFTER_SECONDS) };
  if (refused.kind === "too_large") sendErrorAndClose(res, 413, "payload_too_large", tooLarge, headers);
  else if (refused.kind === "too_slow") sendTooSlow(res, headers);
  else if (refused.refusal === "address") sendErrorAndClose(res, 429, "rate_limited", BODY_ADDRESS_MESSAGE, retry);
  else sendErrorAndClose(res, 503, "unavailable", refused.refusal === "target" ? BODY_TARGET_MESSAGE : BODY_BUDGET_MESSAGE, retry);
}

function sendTooSlow(res: ServerResponse, headers: Record<string, string>): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const payload = JSON.stringify(errorBody("request_timeout", "The request body arrived too slowly. Send it again at a steadier rate."));
  res.writeHead(408, { ...headers, "content-type": "application/json; charset=utf-8", "content-length": String(Buffer.byteLength(payload)), connection: "close" });
  // Node closes the connection once the answer is out (Connection: close); the rest is not waited for.
  res.end(payload);
}

/**
 * The request's body within `maxBytes`, or undefined when there is none to act on: the client
 * hung up, or the body was refused (see refuseBody). The body's bytes go back to the budget
 * when the answer is done.
 */
export async function readBodyOrRefuse(
  req: IncomingMessage,
  res: ServerResponse,
  maxBytes: number,
  options: { what?: string; headers?: Record<string, string>; intake?: BodyIntake } = {},
): Promise<Buffer | undefined> {
  const read = await readBodyCapped(req, maxBytes, options.intake);
  if (read.kind === "complete") {
    if (res.closed) read.release();
    else res.once("close", read.release);
    return read.body;
  }
  if (read.kind !== "aborted") refuseBody(res, read, `${options.what ?? "the body"} exceeds the limit of ${maxBytes} bytes`, options.headers);
  return undefined;
}
