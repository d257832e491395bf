import type { IncomingMessage, ServerResponse } from "node:http";
import { openingCharge, uploadRateFor, type BodyRefusal, type BodySlice, type CaptureRejection, type ErrorCode } from "@rehook/core";
import { BODY_BUDGET_RETRY_AFTER_SECONDS } from "./body-budget.js";
import type { BodyRequester, OpenUpload, RequestBodies } from "./request-bodies.js";
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

/** Where a route's bodies are counted: the server's bodies, the slice, and who sends them (for a capture, its endpoint). */
export interface BodyIntake extends BodyRequester {
  bodies: RequestBodies;
  /** Unset: the dashboard's slice. */
  slice?: BodySlice;
}

const TOO_LARGE: BodyResult = { kind: "too_large" };
const TOO_SLOW: BodyResult = { kind: "too_slow" };
const ABORTED: BodyResult = { kind: "aborted" };
const OVER: Record<BodyRefusal, BodyResult> = {
  address: { kind: "over_budget", refusal: "address" },
  network: { kind: "over_budget", refusal: "network" },
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
 * up front (or its declared length, when smaller) and grows past it only with what it sent,
 * and one that falls behind the minimum rate is ended (too_slow).
 */
export function readBodyCapped(req: IncomingMessage, maxBytes: number, intake: BodyIntake): Promise<BodyResult> {
  const header = req.headers["content-length"];
  const declared = header === undefined ? undefined : Number(header);
  if (declared !== undefined && declared > maxBytes) return Promise.resolve(TOO_LARGE);
  const { bodies } = intake;
  const hold = bodies.open(req, intake.slice ?? "dashboard", intake);
  const opening = expectsBody(req, declared) ? hold.reserve(openingCharge(declared, maxBytes)) : null;
  if (opening) return Promise.resolve(OVER[opening]);

  return new Promise((resolve) => {
    let chunks: Buffer[] = [];
    let done: ((result: BodyResult) => void) | undefined = resolve;
    const upload: OpenUpload = {
      startedAt: bodies.now(),
      rate: uploadRateFor(declared, maxBytes, bodies.minRate),
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

/** How each refusal is answered; `code` is also the capture metric's reason. */
export interface RefusalAnswer {
  status: number;
  code: ErrorCode & CaptureRejection;
  /** Unset: the route's own "too large" sentence. */
  message?: string;
  /** Asked to send again in BODY_BUDGET_RETRY_AFTER_SECONDS. */
  retry?: boolean;
  /** Whether the rest of the body is read and dropped before the close, so the sender reads the answer. */
  linger: boolean;
}

const AGAIN = "Send it again in a few seconds.";
const REFUSALS: Record<Exclude<BodyRefused["kind"], "over_budget"> | BodyRefusal, RefusalAnswer> = {
  too_large: { status: 413, code: "payload_too_large", linger: true },
  // Waiting for the rest of a trickle is what it would cost: closed once the answer is out.
  too_slow: { status: 408, code: "request_timeout", message: "The request body arrived too slowly. Send it again at a steadier rate.", linger: false },
  address: { status: 429, code: "rate_limited", message: `Too many request bodies from your address are being received at once. ${AGAIN}`, retry: true, linger: true },
  network: { status: 429, code: "rate_limited", message: `Too many request bodies from your network are being received at once. ${AGAIN}`, retry: true, linger: true },
  target: { status: 503, code: "unavailable", message: `This capture URL is receiving too many request bodies at once. ${AGAIN}`, retry: true, linger: true },
  slice: { status: 503, code: "unavailable", message: `The server is receiving too many request bodies at once. ${AGAIN}`, retry: true, linger: true },
};

/** How a refused body is answered (and counted). */
export function refusalAnswer(refused: BodyRefused): RefusalAnswer {
  return REFUSALS[refused.kind === "over_budget" ? refused.refusal : refused.kind];
}

/**
 * Answers a body that was not taken in, then closes: 413 (too large), 429 (its address or
 * network holds its share), 503 (the endpoint or the server has no room), each read and
 * dropped before the close, or 408 (too slow: closed at once).
 */
export function refuseBody(res: ServerResponse, refused: BodyRefused, tooLarge: string, headers: Record<string, string> = {}): void {
  const answer = refusalAnswer(refused);
  const all = answer.retry ? { ...headers, "retry-after": String(BODY_BUDGET_RETRY_AFTER_SECONDS) } : headers;
  sendErrorAndClose(res, answer.status, answer.code, answer.message ?? tooLarge, all, { linger: answer.linger });
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
  options: { what?: string; headers?: Record<string, string>; intake: BodyIntake },
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
