import type { IncomingMessage, ServerResponse } from "node:http";
import { performance } from "node:perf_hooks";
import {
  CAPTURE_ANSWER_SECURITY_HEADERS,
  DOT_SEGMENT_REASON,
  hasDotSegment,
  headerListFromRaw,
  isValidSlug,
  notFoundMessage,
  parseCapturePath,
  signatureReasonText,
  type CaptureMetrics,
  type Logger,
  type RenderedResponse,
} from "@rehook/core";
import type { CaptureInput, CaptureOutcome } from "@rehook/services";
import { annotateAccess } from "./access-fields.js";
import { readBodyCapped, refusalAnswer, refuseBody } from "./body.js";
import { clientIp } from "./client-ip.js";
import { DelayedAnswers } from "./delayed-answers.js";
import type { RequestBodies } from "./request-bodies.js";
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
  /**
   * Whether an endpoint has this slug, asked before the body is read, so a made-up or deleted
   * slug is answered 404 without taking its body in (absent: every body is read, and the
   * capture statement stores it or finds no endpoint). Synchronous when known (see KnownSlugs).
   */
  slugExists?: (slug: string) => boolean | Promise<boolean>;
  /** The server's request bodies: captures draw on their slice, counted per address and per endpoint. */
  bodies: RequestBodies;
  /** Capture URLs have a host of their own (CAPTURE_BASE_URL): what becomes of one sent to the dashboard's (absent: nothing). */
  dashboardHost?: DashboardHostRule;
}

/**
 * With CAPTURE_BASE_URL set, a capture sent to the dashboard's host (a sender set up before it)
 * is either taken and marked on its access line (`dashboard_host`: who has not moved yet), or
 * refused with 421 and never stored. The Host header decides only where a request is routed,
 * never what it may do: a client that names another host reaches the same capture URL it could
 * reach at the right one, and a browser cannot forge the Host it sends, so a link to the
 * dashboard's host meets the refusal.
 */
export interface DashboardHostRule {
  /** Whether a Host header names the dashboard (BASE_URL, ALLOWED_ORIGINS; see OriginPolicy.isOwnHost). */
  isDashboardHost(host: string | undefined): boolean;
  /** CAPTURE_ON_DASHBOARD_HOST=false. */
  refuse: boolean;
  /** CAPTURE_BASE_URL, named in the refusal. */
  captureBaseUrl: string;
}

// Senders in a browser may read the answer; nothing here depends on cookies. Every answer
// also carries the capture security headers: capture URLs may share the dashboard's origin.
const CORS = { "access-control-allow-origin": "*", ...CAPTURE_ANSWER_SECURITY_HEADERS };

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

/** An endpoint's own answer (custom response or handshake): its headers win over the CORS default, never over the security headers. */
function sendAnswer(res: ServerResponse, answer: RenderedResponse): void {
  if (res.destroyed || res.headersSent) return;
  const body = Buffer.from(answer.body, "utf8");
  const own = new Set(Object.keys(answer.headers).map((name) => name.toLowerCase()));
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(CORS)) if (!own.has(name)) headers[name] = value;
  res.writeHead(answer.status, { ...headers, ...answer.headers, ...CAPTURE_ANSWER_SECURITY_HEADERS, "content-length": String(body.byteLength) });
  res.end(body);
}

/**
 * Sends an endpoint's own answer; one node refuses (a header value it cannot send, saved
 * before such values were refused) becomes a 500, or a closed connection once headers went.
 * Never throws: a delayed answer runs in a timer, where a throw would end the process.
 */
function sendAnswerOrFail(res: ServerResponse, answer: RenderedResponse, logger: Logger, slug: string): void {
  const before = new Set(res.getHeaderNames());
  try {
    sendAnswer(res, answer);
  } catch (error) {
    logger.error("a custom response could not be sent", { slug, error: String(error) });
    if (res.headersSent) {
      res.destroy();
      return;
    }
    // writeHead may have set some of the answer's headers before it refused one.
    for (const name of res.getHeaderNames()) if (!before.has(name)) res.removeHeader(name);
    sendError(res, 500, "internal", "The event was stored, but this endpoint's custom response could not be sent: its owner should save it again.", CORS);
  }
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
    const dashboardHost = options.dashboardHost;
    if (dashboardHost?.isDashboardHost(req.headers.host)) {
      if (dashboardHost.refuse) {
        const url = `${dashboardHost.captureBaseUrl}/api/webhook/${target && isValidSlug(target.slug) ? target.slug : "{slug}"}`;
        sendErrorAndClose(res, 421, "misdirected", `This host serves the dashboard, not capture URLs. Send captures to ${url}. Nothing was stored.`, CORS);
        metrics?.captureRejected("misdirected", since(started));
        return;
      }
      annotateAccess(res, { dashboard_host: true });
    }
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

    if (options.slugExists) {
      const known = options.slugExists(target.slug);
      // Known slugs answer synchronously: the common case costs no await.
      const exists = known === true || (known !== false && (await lookedUp(known, options.logger, target.slug)));
      if (exists === "unavailable") {
        sendErrorAndClose(res, 503, "unavailable", "The event could not be stored right now. Send it again in a few seconds.", { ...CORS, "retry-after": "5" });
        metrics?.captureRejected("unavailable", since(started));
        return;
      }
      if (!exists) {
        sendErrorAndClose(res, 404, "not_found", notFoundMessage("endpoint slug", target.slug), CORS);
        metrics?.captureRejected("not_found", since(started));
        return;
      }
    }

    const read = await readBodyCapped(req, options.maxPayloadBytes, { bodies: options.bodies, slice: "capture", target: target.slug });
    if (read.kind === "aborted") {
      // The sender hung up before finishing: nothing was acknowledged.
      metrics?.captureRejected("aborted", since(started));
      return;
    }
    if (read.kind !== "complete") {
      refuseBody(res, read, `The body exceeds the limit of ${options.maxPayloadBytes} bytes. Send a smaller one.`, CORS);
      metrics?.captureRejected(refusalAnswer(read).code, since(started));
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
    } finally {
      // Stored or not, this request is done with its body: its bytes go back to the budget.
      read.release();
    }
    if (outcome.kind === "not_found") {
      sendError(res, 404, "not_found", notFoundMessage("endpoint slug", target.slug), CORS);
      metrics?.captureRejected("not_found", since(started));
      return;
    }
    if (outcome.kind === "rejected") {
      const problem = outcome.signature === "missing" ? "carries no signature" : "has a signature that does not verify";
      // The reason's sentence tells the sender what to fix (a clock, a secret, a header).
      const message = `The request ${problem}, and this endpoint stores only signed requests. Nothing was stored. ${signatureReasonText(outcome.reason)}`;
      sendError(res, 401, "unauthorized", message, CORS);
      metrics?.captureRejected("invalid_signature", since(started));
      return;
    }
    metrics?.captureStored(since(started));
    if (outcome.duplicateOf) metrics?.captureDuplicate();
    // For the access line (request-listener): which event this request stored, and how big.
    annotateAccess(res, { event_id: outcome.eventId, bytes: read.body.byteLength });
    const answer = outcome.answer;
    if (!answer) {
      // eventId is a UUID: no escaping needed, so skip JSON.stringify on every capture.
      sendJsonText(res, 200, `{"received":true,"eventId":"${outcome.eventId}"}`, CORS);
      return;
    }
    const slug = target.slug;
    delayedAnswers.hold(outcome.delayMs, () => sendAnswerOrFail(res, answer, options.logger, slug), res);
  };
}

/** A slug's lookup; "unavailable" when the database could not say. */
async function lookedUp(lookup: Promise<boolean>, logger: Logger, slug: string): Promise<boolean | "unavailable"> {
  try {
    return await lookup;
  } catch (error) {
    logger.error("could not look up a capture slug", { slug, error: String(error) });
    return "unavailable";
  }
}
