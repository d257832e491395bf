import type { IncomingMessage, ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import {
  DOT_SEGMENT_REASON,
  hasDotSegment,
  headerListFromRaw,
  isValidSlug,
  notFoundMessage,
  parseCapturePath,
  type CaptureMetrics,
  type Logger,
  type RenderedResponse,
} from "@rehook/core";
import type { CaptureInput, CaptureOutcome } from "@rehook/services";
import { readBodyCapped } from "./body.js";
import { clientIp } from "./client-ip.js";
import { DelayedAnswers } from "./delayed-answers.js";
import { sendError, sendErrorAndClose, sendJsonText } from "./respond.js";

export interface CaptureHandlerOptions {
  capture(input: CaptureInput): Promise<CaptureOutcome>;
  maxPayloadBytes: number;
  maxHeaderCount: number;
  /** X-Forwarded-For hops to believe for the stored client address (0: the socket peer). */
  trustedProxyHops: number;
  logger: Logger;
  /** Counts each capture's outcome and duration (absent: METRICS_ENABLED=false). */
  metrics?: CaptureMetrics;
  /** Holds custom responses' delays (absent: a handler of its own). */
  delayedAnswers?: DelayedAnswers;
}

// Senders in a browser may read the answer; nothing here depends on cookies.
const CORS = { "access-control-allow-origin": "*" };

function splitTarget(target: string): { pathname: string; query: string } {
  const mark = target.indexOf("?");
  return mark === -1 ? { pathname: target, query: "" } : { pathname: target.slice(0, mark), query: target.slice(mark + 1) };
}

function answerPreflight(req: IncomingMessage, res: ServerResponse): void {
  const requestedHeaders = req.headers["access-control-request-headers"];
  res.writeHead(204, {
    ...CORS,
    "access-control-allow-methods": "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS",
    ...(requestedHeaders ? { "access-control-allow-headers": requestedHeaders } : {}),
    "access-control-max-age": "86400",
    "content-length": "0",
  });
  res.end();
}

/** An endpoint's own answer (custom response or handshake): its headers win over the CORS default. */
function sendAnswer(res: ServerResponse, answer: RenderedResponse): void {
  if (res.destroyed || res.headersSent) return;
  const body = Buffer.from(answer.body, "utf8");
  const own = new Set(Object.keys(answer.headers).map((name) => name.toLowerCase()));
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(CORS)) if (!own.has(name)) headers[name] = value;
  res.writeHead(answer.status, { ...headers, ...answer.headers, "content-length": String(body.byteLength) });
  res.end(body);
}

/**
 * The capture URL, {BASE_URL}/api/webhook/{slug}[/sub/path][?query]: every method, every
 * header in order, the body byte for byte. 200 only after the event row is committed.
 */
export function createCaptureHandler(options: CaptureHandlerOptions) {
  const metrics = options.metrics;
  const delayedAnswers = options.delayedAnswers ?? new DelayedAnswers();
  // Seconds since `started` (performance.now() milliseconds). With the read at the start, the
  // duration histogram costs two clock reads per capture, about 100 ns (docs/benchmarks.md).
  const since = (started: number) => (performance.now() - started) / 1000;
  return async function handleCapture(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const { pathname, query } = splitTarget(req.url ?? "/");
    const target = parseCapturePath(pathname);
    if (!target) {
      sendError(res, 404, "not_found", "There is no endpoint here. Capture URLs look like /api/webhook/{slug}: copy yours from the dashboard.", CORS);
      metrics?.captureRejected("not_found", since(started));
      return;
    }
    if (!isValidSlug(target.slug)) {
      // No endpoint can have this slug: answer without reading the body or asking the database.
      sendErrorAndClose(res, 404, "not_found", notFoundMessage("endpoint slug", target.slug), CORS);
      metrics?.captureRejected("not_found", since(started));
      return;
    }
    if (hasDotSegment(target.subPath)) {
      // Refused rather than kept: forwarded, it could climb out of the destination's path.
      sendErrorAndClose(res, 400, "bad_request", DOT_SEGMENT_REASON, CORS);
      metrics?.captureRejected("bad_request", since(started));
      return;
    }
    if (req.method === "OPTIONS" && req.headers["access-control-request-method"]) {
      answerPreflight(req, res);
      return;
    }
    if (req.rawHeaders.length / 2 > options.maxHeaderCount) {
      sendErrorAndClose(res, 431, "headers_too_large", `The request has too many headers. Send at most ${options.maxHeaderCount}.`, CORS);
      metrics?.captureRejected("headers_too_large", since(started));
      return;
    }

    const read = await readBodyCapped(req, options.maxPayloadBytes);
    if (read.kind === "aborted") {
      // The sender hung up before finishing: nothing was acknowledged.
      metrics?.captureRejected("aborted", since(started));
      return;
    }
    if (read.kind === "too_large") {
      sendErrorAndClose(res, 413, "payload_too_large", `The body exceeds the limit of ${options.maxPayloadBytes} bytes. Send a smaller one.`, CORS);
      metrics?.captureRejected("payload_too_large", since(started));
      return;
    }

    let outcome: CaptureOutcome;
    try {
      outcome = await options.capture({
        slug: target.slug,
        method: req.method ?? "GET",
        subPath: target.subPath,
        query,
        headers: headerListFromRaw(req.rawHeaders),
        body: read.body,
        clientIp: clientIp(req, options.trustedProxyHops),
      });
    } catch (error) {
      options.logger.error("capture could not be stored", { slug: target.slug, error: String(error) });
      sendError(res, 503, "unavailable", "The event could not be stored right now. Send it again in a few seconds.", { ...CORS, "retry-after": "5" });
      metrics?.captureRejected("unavailable", since(started));
      return;
    }
    if (outcome.kind === "not_found") {
      sendError(res, 404, "not_found", notFoundMessage("endpoint slug", target.slug), CORS);
      metrics?.captureRejected("not_found", since(started));
      return;
    }
    if (outcome.kind === "rejected") {
      const problem = outcome.signature === "missing" ? "carries no signature" : "has a signature that does not verify";
      sendError(res, 401, "unauthorized", `The request ${problem}, and this endpoint stores only signed requests. Nothing was stored.`, CORS);
      metrics?.captureRejected("invalid_signature", since(started));
      return;
    }
    metrics?.captureStored(since(started));
    const answer = outcome.answer;
    if (!answer) {
      // eventId is a UUID: no escaping needed, so skip JSON.stringify on every capture.
      sendJsonText(res, 200, `{"received":true,"eventId":"${outcome.eventId}"}`, CORS);
      return;
    }
    delayedAnswers.hold(outcome.delayMs, () => sendAnswer(res, answer), res);
  };
}
