import { checkDestinationSyntax, timeoutError, type HeaderList } from "@rehook/core";
import type { Dispatcher } from "undici";
import { checkLiteralHost, type SafeAgent } from "./safe-agent.js";
import { failedOnStaleConnection } from "./stale-connection.js";
import type { DeliveryResult, DeliveryTask } from "./types.js";

/** When an attempt started: the wall clock to store, the monotonic clock to time it. */
interface Clock {
  startedAt: number;
  started: number;
}

function startClock(): Clock {
  return { startedAt: Date.now(), started: performance.now() };
}

function elapsed(clock: Clock): number {
  return Math.round(performance.now() - clock.started);
}

function failure(clock: Clock, error: string, timedOut = false): DeliveryResult {
  return { ok: false, status: null, headers: null, body: null, truncated: false, startedAt: clock.startedAt, latencyMs: elapsed(clock), error, timedOut };
}

function flatten(headers: HeaderList): string[] {
  return headers.flatMap(([name, value]) => [name, value]);
}

/** Response headers as pairs, in order (undici gives arrays for repeated names). */
function pairs(headers: Record<string, string | string[] | undefined>): HeaderList {
  const list: HeaderList = [];
  for (const [name, value] of Object.entries(headers)) {
    if (Array.isArray(value)) for (const item of value) list.push([name, item]);
    else if (value !== undefined) list.push([name, value]);
  }
  return list;
}

/** Failure texts by error code: fixed words, because system messages name the address connected to. */
const FAILURES: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host not found",
  ECONNRESET: "connection reset",
  EPIPE: "connection reset",
  UND_ERR_SOCKET: "connection reset",
  UND_ERR_CONNECT_TIMEOUT: "connect timed out",
  ETIMEDOUT: "connect timed out",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  EADDRNOTAVAIL: "address not available",
  UND_ERR_HEADERS_OVERFLOW: "the answer's headers are too large",
  HPE_INVALID_CONSTANT: "the answer is not valid HTTP",
};

/**
 * Why a request failed, without the address it went to: a refusal's own reason (it names
 * only the kind of address), else a fixed text for the error's code. Raw system messages
 * ("connect EHOSTUNREACH 10.0.0.7:443") are never passed on.
 */
function describe(error: unknown): string {
  const err = error as { code?: string; message?: string; cause?: { code?: string; message?: string }; errors?: Array<{ code?: string }> };
  const cause = err.cause ?? err;
  if (cause.code === "ERR_REHOOK_BLOCKED_ADDRESS") return cause.message ?? "blocked";
  // Happy eyeballs tried several addresses: an AggregateError whose parts carry the codes.
  const code = cause.code ?? (cause as typeof err).errors?.find((part) => part.code)?.code;
  if (code && FAILURES[code]) return FAILURES[code];
  return code ? `connection failed (${code})` : "connection failed";
}

/**
 * Sends the request once on the pooled agent. A pooled connection the server closed while
 * it sat idle fails before any byte of an answer: only then is it sent once more, on a
 * connection of its own, under the same deadline (a reset on a fresh connection, or after
 * part of an answer, may mean the destination acted on it, so it is never resent).
 */
async function requestWithOneRetry(agent: SafeAgent, task: DeliveryTask, url: URL, clock: Clock, deadline: AbortSignal): Promise<Dispatcher.ResponseData> {
  const attempt = (dispatcher: Dispatcher) => {
    const remainingMs = Math.max(1, task.timeoutMs - elapsed(clock));
    return dispatcher.request({
      origin: url.origin,
      path: `${url.pathname}${url.search}`,
      method: task.method,
      headers: flatten(task.headers),
      body: task.method === "GET" || task.method === "HEAD" ? (task.body.byteLength > 0 ? Buffer.from(task.body) : null) : Buffer.from(task.body),
      signal: deadline,
      headersTimeout: remainingMs,
      bodyTimeout: remainingMs,
    });
  };
  try {
    return await attempt(agent.pooled);
  } catch (error) {
    if (deadline.aborted || !failedOnStaleConnection(error)) throw error;
    return attempt(agent.fresh);
  }
}

/**
 * Sends one request through the safe agent: the original method, headers and body bytes;
 * no redirects followed; one total deadline for connecting, sending and reading the answer;
 * at most maxResponseBytes of the answer kept.
 */
export async function sendRequest(agent: SafeAgent, task: DeliveryTask): Promise<DeliveryResult> {
  const clock = startClock();
  if (task.refused) return failure(clock, task.refused);
  const syntax = checkDestinationSyntax(task.url);
  if (!syntax.ok) return failure(clock, `invalid URL: ${syntax.reason}`);
  const url = new URL(syntax.url);
  const blocked = checkLiteralHost(url, { allowPrivate: task.allowPrivate });
  if (blocked) return failure(clock, blocked);

  const deadline = AbortSignal.timeout(task.timeoutMs);
  try {
    const response = await requestWithOneRetry(agent, task, url, clock, deadline);
    const chunks: Buffer[] = [];
    let kept = 0;
    let received = 0;
    for await (const chunk of response.body as AsyncIterable<Buffer>) {
      received += chunk.byteLength;
      const room = task.maxResponseBytes - kept;
      if (room > 0) {
        const part = chunk.byteLength > room ? chunk.subarray(0, room) : chunk;
        chunks.push(part);
        kept += part.byteLength;
      }
    }
    const truncated = received > kept;
    const status = response.statusCode;
    const ok = status >= 200 && status < 300;
    return {
      ok,
      status,
      headers: pairs(response.headers),
      body: Buffer.concat(chunks, kept),
      truncated,
      startedAt: clock.startedAt,
      latencyMs: elapsed(clock),
      error: ok ? null : status >= 300 && status < 400 ? `destination answered ${status} (redirects are not followed)` : `destination answered ${status}`,
      timedOut: false,
    };
  } catch (error) {
    if (deadline.aborted) return failure(clock, timeoutError(task.timeoutMs), true);
    return failure(clock, describe(error));
  }
}
