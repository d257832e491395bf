/**
 * A Local replay sent by this browser (when no `rehook listen` of the user's takes it), and
 * what the browser can know of what happened: see core's browser-replay.ts for the rules.
 */
import {
  failedFetchOutcome,
  forwardableHeaders,
  noCorsRequest,
  outcomeRecordError,
  preflightReasons,
  type BrowserReplayOutcome,
  type ForwardHeaderOptions,
} from "@rehook/core/browser";
import { base64Bytes } from "./replay";

/** What the server gives the browser to send (replays.localRequest). */
export interface LocalRequest {
  url: string;
  method: string;
  headers: Array<[string, string]>;
  keepProxyHeaders: boolean;
  bodyBase64: string;
}

/** Request headers a page may not set (the Fetch standard's forbidden request-header names). */
const FORBIDDEN_HEADERS = new Set([
  "accept-charset",
  "accept-encoding",
  "access-control-request-headers",
  "access-control-request-method",
  "access-control-request-private-network",
  "connection",
  "content-length",
  "cookie",
  "cookie2",
  "date",
  "dnt",
  "expect",
  "host",
  "keep-alive",
  "origin",
  "referer",
  "set-cookie",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "via",
]);
const METHOD_OVERRIDES = new Set(["x-http-method", "x-http-method-override", "x-method-override"]);
const FORBIDDEN_METHODS = new Set(["connect", "trace", "track"]);

function browserMaySet(name: string, value: string): boolean {
  const lower = name.toLowerCase();
  if (FORBIDDEN_HEADERS.has(lower) || lower.startsWith("proxy-") || lower.startsWith("sec-")) return false;
  if (METHOD_OVERRIDES.has(lower) && value.split(",").some((method) => FORBIDDEN_METHODS.has(method.trim().toLowerCase()))) return false;
  return true;
}

/**
 * The stored headers a browser can send, in order: minus hop-by-hop and forbidden ones, the
 * proxy headers unless the endpoint keeps them (as forwarding does), and any the Headers API rejects.
 */
export function browserHeaderList(stored: Array<[string, string]>, options: ForwardHeaderOptions = {}): Array<[string, string]> {
  const sendable: Array<[string, string]> = [];
  for (const [name, value] of forwardableHeaders(stored, options)) {
    if (!browserMaySet(name, value)) continue;
    try {
      new Headers().append(name, value);
      sendable.push([name, value]);
    } catch {
      // An invalid name or value for the Fetch API: left out.
    }
  }
  return sendable;
}

/** recordLocal's limits: the body is cut at 256 KiB of text, the error at 2,000 characters. */
const MAX_BODY_CHARS = 256 * 1024;
const MAX_ERROR_CHARS = 2_000;
const LOCAL_TIMEOUT_MS = 30_000;
/** How long the probe that tells "nothing listening" from "CORS refused" may take. */
const PROBE_TIMEOUT_MS = 5_000;

/** What this browser got, ready to record (replays.recordLocal) and to explain. */
export interface BrowserLocalResult {
  url: string;
  outcome: BrowserReplayOutcome;
  status: number | null;
  body: string | null;
  latencyMs: number;
  /** The recorded error: what happened, never "sent" when nothing was. */
  error: string | null;
}

const isTimeout = (error: unknown) => error instanceof DOMException && error.name === "TimeoutError";

/**
 * Whether anything answers at the origin: one HEAD / without CORS (no body, no headers; its
 * answer is opaque, but it arrives only if something listens). A refused connection fails
 * at once; a listener slow to answer counts as listening.
 */
async function somethingListens(origin: string): Promise<boolean> {
  try {
    await fetch(`${origin}/`, { method: "HEAD", mode: "no-cors", credentials: "omit", cache: "no-store", signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    return true;
  } catch (error) {
    return isTimeout(error);
  }
}

function timer(): () => number {
  const started = performance.now();
  return () => Math.min(3_600_000, Math.max(0, Math.round(performance.now() - started)));
}

function result(request: LocalRequest, outcome: BrowserReplayOutcome, latencyMs: number, answer: { status: number; body: string | null } | null): BrowserLocalResult {
  const error = outcomeRecordError(outcome, request.url, window.location.origin);
  return { url: request.url, outcome, status: answer?.status ?? null, body: answer?.body ?? null, latencyMs, error: error === null ? null : error.slice(0, MAX_ERROR_CHARS) };
}

/**
 * Sends the event from this browser to the developer's machine, timed here: the stored body
 * bytes, the headers a page may set. A failure is judged (preflight refused, answer hidden,
 * nothing listening, no answer in time) before it is reported, never as "sent" when it was not.
 */
export async function sendFromBrowser(request: LocalRequest): Promise<BrowserLocalResult> {
  const method = request.method.toUpperCase();
  const headers = browserHeaderList(request.headers, { keepProxyHeaders: request.keepProxyHeaders });
  const preflight = preflightReasons(method, headers);
  const elapsed = timer();
  try {
    const response = await fetch(request.url, {
      method,
      headers: new Headers(headers),
      body: method === "GET" || method === "HEAD" ? undefined : base64Bytes(request.bodyBase64),
      mode: "cors",
      credentials: "omit",
      cache: "no-store",
      redirect: "follow",
      signal: AbortSignal.timeout(LOCAL_TIMEOUT_MS),
    });
    const latencyMs = elapsed();
    let body: string | null = null;
    try {
      body = (await response.text()).slice(0, MAX_BODY_CHARS);
    } catch {
      body = null;
    }
    return result(request, { kind: "answered", status: response.status }, latencyMs, { status: response.status, body });
  } catch (error) {
    const latencyMs = elapsed();
    if (isTimeout(error)) return result(request, failedFetchOutcome({ preflight, reachable: true, timedOutAfter: LOCAL_TIMEOUT_MS / 1000 }), latencyMs, null);
    const reachable = await somethingListens(new URL(request.url).origin);
    return result(request, failedFetchOutcome({ preflight, reachable }), latencyMs, null);
  }
}

/** Header names, each once (the first spelling). */
function namesOf(headers: Array<[string, string]>): string[] {
  const seen = new Map<string, string>();
  for (const [name] of headers) if (!seen.has(name.toLowerCase())) seen.set(name.toLowerCase(), name);
  return [...seen.values()];
}

/** What a send without CORS would leave out; null when the method cannot go so (only GET, HEAD, POST can). */
export function withoutCors(request: LocalRequest): { dropped: string[] } | null {
  const plain = noCorsRequest(request.method, browserHeaderList(request.headers, { keepProxyHeaders: request.keepProxyHeaders }));
  return plain && { dropped: namesOf(plain.dropped) };
}

/**
 * Sends the event without CORS (the user asked, after a refused preflight): the body bytes as
 * stored, only the headers such a request may carry. The browser cannot read the answer.
 */
export async function sendWithoutCors(request: LocalRequest): Promise<BrowserLocalResult> {
  const method = request.method.toUpperCase();
  const plain = noCorsRequest(method, browserHeaderList(request.headers, { keepProxyHeaders: request.keepProxyHeaders }));
  if (!plain) throw new Error(`A ${method} cannot be sent without CORS: only GET, HEAD and POST can.`);
  const elapsed = timer();
  try {
    await fetch(request.url, {
      method,
      headers: new Headers(plain.kept),
      body: method === "GET" || method === "HEAD" ? undefined : base64Bytes(request.bodyBase64),
      mode: "no-cors",
      credentials: "omit",
      cache: "no-store",
      signal: AbortSignal.timeout(LOCAL_TIMEOUT_MS),
    });
    return result(request, { kind: "opaque", dropped: namesOf(plain.dropped) }, elapsed(), null);
  } catch (error) {
    const latencyMs = elapsed();
    if (isTimeout(error)) return result(request, { kind: "timed_out", preflight: false, seconds: LOCAL_TIMEOUT_MS / 1000 }, latencyMs, null);
    return result(request, { kind: "nothing_listening" }, latencyMs, null);
  }
}
