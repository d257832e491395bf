import { forwardableHeaders, forwardTarget, uuidv7, type HeaderList } from "@rehook/core";
import { NoAnswerError, readText, sendRequest } from "./http-request.js";
import { PendingRecords } from "./pending-records.js";
import type { ListenNews } from "./report.js";
import { readSse } from "./sse.js";

/** An event as the stream sends it (GET /api/v1/endpoints/{id}/stream): `webhook`, or `replay` with the attempt id to record. */
interface StreamedEvent {
  attempt_id?: string;
  id: string;
  method: string;
  path: string;
  query: string;
  headers: HeaderList;
  body_base64: string;
  source: string;
  event_type: string;
}

export interface ListenOptions {
  server: string;
  apiKey: string;
  endpointSlug: string;
  forward: string;
  retries: number;
  /** Where what happens is told (see report.ts). */
  report: (news: ListenNews) => void;
  signal: AbortSignal;
}

/** A refusal the listener cannot get past by waiting (a wrong key, a missing endpoint). */
export class ListenError extends Error {
  override name = "ListenError";
}

const RECORD_BODY_BYTES = 64 * 1024;
const LOCAL_TIMEOUT_MS = 30_000;

/** Longest silence from the server: for an answer, and on the stream (it pings every 15 s). */
const SERVER_ANSWER_TIMEOUT_MS = 15_000;
const STREAM_IDLE_TIMEOUT_MS = 45_000;

function authorization(options: ListenOptions): Record<string, string> {
  return { authorization: `Bearer ${options.apiKey}` };
}

async function apiJson(options: ListenOptions, path: string, init: { method?: string; body?: unknown } = {}): Promise<{ status: number; json: any }> {
  const response = await sendRequest(`${options.server}/api/v1${path}`, {
    method: init.method ?? "GET",
    headers: { ...authorization(options), ...(init.body !== undefined ? { "content-type": "application/json" } : {}) },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
    idleTimeoutMs: SERVER_ANSWER_TIMEOUT_MS,
    signal: options.signal,
  });
  const text = await readText(response);
  return { status: response.statusCode ?? 0, json: text ? JSON.parse(text) : null };
}

/** Why a request to the server failed, in a few words. */
function unreachableReason(error: unknown): string {
  if (error instanceof NoAnswerError) return error.message;
  const code = (error as { code?: string }).code;
  if (code === "ECONNREFUSED") return "connection refused";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "no such host";
  if (code === "ECONNRESET") return "the server closed the connection";
  return (error instanceof Error ? error.message : String(error)).split("\n")[0]!;
}

/** Waits `ms`, or less when `signal` aborts. */
function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(timer), resolve()), { once: true });
  });
}

/** What listen needs of the endpoint: its id, and whether it keeps proxy headers when forwarding. */
interface ListenedEndpoint {
  id: string;
  keepProxyHeaders: boolean;
}

/** The endpoint from its slug, through the API (so a wrong key fails here, clearly). */
async function findEndpoint(options: ListenOptions): Promise<ListenedEndpoint> {
  for (let offset = 0; ; offset += 100) {
    const { status, json } = await apiJson(options, `/endpoints?limit=100&offset=${offset}`);
    if (status === 401) throw new ListenError("The API key was refused (401). Check --api-key or REHOOK_API_KEY.");
    if (status === 404) throw new ListenError(`${options.server} has no public API (404): is it a Rehook server with PUBLIC_API_ENABLED?`);
    if (status !== 200) throw new Error(`listing endpoints answered ${status}`);
    const found = (json.data as Array<{ id: string; slug: string; keep_proxy_headers?: boolean }>).find((endpoint) => endpoint.slug === options.endpointSlug);
    if (found) return { id: found.id, keepProxyHeaders: found.keep_proxy_headers === true };
    if (offset + 100 >= json.meta.total) throw new ListenError(`This API key has no endpoint with the slug ${options.endpointSlug}. Check the slug with rehook endpoint list --email <your email>.`);
  }
}

/**
 * findEndpoint until the server answers: a server that is not up yet (or a wrong --server)
 * is named with the reason and tried again with backoff until it answers; undefined when
 * stopped first.
 */
async function findEndpointPatiently(options: ListenOptions): Promise<ListenedEndpoint | undefined> {
  let backoffMs = 500;
  while (!options.signal.aborted) {
    try {
      return await findEndpoint(options);
    } catch (error) {
      if (error instanceof ListenError) throw error;
      if (options.signal.aborted) break;
      options.report({ type: "unreachable", server: options.server, reason: unreachableReason(error), retryInMs: backoffMs });
      await pause(backoffMs, options.signal);
      backoffMs = Math.min(backoffMs * 2, 10_000);
    }
  }
  return undefined;
}

interface LocalResult {
  status: number | null;
  latencyMs: number;
  body: string | null;
  error: string | null;
  /** The URL requested (--forward with the captured path and query); null when none could be made. */
  url: string | null;
}

/**
 * Sends the event to the local server as it was captured: method, headers in order (minus
 * hop-by-hop, and proxy headers unless the endpoint keeps them), body bytes. A sub-path that
 * could leave --forward's path is not sent.
 */
async function sendLocally(options: ListenOptions, endpoint: ListenedEndpoint, event: StreamedEvent): Promise<LocalResult> {
  const started = performance.now();
  const body = Buffer.from(event.body_base64, "base64");
  // Always --forward's own origin and path: the server names only the sub-path, never where to send.
  const target = forwardTarget(options.forward, event.path, event.query);
  if (!target.ok) return { status: null, latencyMs: 0, body: null, error: target.reason, url: null };
  try {
    const sendsBody = event.method !== "GET" && event.method !== "HEAD";
    // Host and Content-Length are set anew for the local hop (a raw header list gets neither from node:http).
    const headers = [
      ...forwardableHeaders(event.headers, { keepProxyHeaders: endpoint.keepProxyHeaders }).flat(),
      "Host",
      new URL(target.url).host,
      ...(sendsBody ? ["Content-Length", String(body.length)] : []),
    ];
    const response = await sendRequest(target.url, {
      method: event.method,
      headers,
      ...(sendsBody ? { body } : {}),
      idleTimeoutMs: LOCAL_TIMEOUT_MS,
      signal: options.signal,
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response) {
      if (size < RECORD_BODY_BYTES) chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
    }
    const answer = Buffer.concat(chunks).subarray(0, RECORD_BODY_BYTES).toString("utf8");
    return { status: response.statusCode ?? null, latencyMs: Math.round(performance.now() - started), body: answer, error: null, url: target.url };
  } catch (error) {
    const code = (error as { code?: string }).code;
    const reason = code === "ECONNREFUSED" ? "connection refused (is the local server running?)" : unreachableReason(error);
    return { status: null, latencyMs: Math.round(performance.now() - started), body: null, error: reason, url: target.url };
  }
}

export interface ListenSummary {
  received: number;
  ok: number;
  failed: number;
}

/**
 * Streams the endpoint's new events and replays each to the local server, one at a time
 * in order, recording every attempt as a "local" replay via listen. Any disconnect is followed by a
 * reconnect (with backoff, shown) that resumes after the last event seen; ids already
 * handled are never sent twice. The dashboard's Local replays of the key's member come on the
 * same stream and are forwarded once each, recorded under the attempt id the server chose.
 * Returns when `signal` aborts.
 */
export async function listen(options: ListenOptions): Promise<ListenSummary> {
  const summary: ListenSummary = { received: 0, ok: 0, failed: 0 };
  // Read once, at start: a changed keep_proxy_headers applies when listen is started again.
  const endpoint = await findEndpointPatiently(options);
  if (endpoint) await streamAndForward(options, endpoint, summary);
  return summary;
}

async function streamAndForward(options: ListenOptions, endpoint: ListenedEndpoint, summary: ListenSummary): Promise<void> {
  const seen = new Set<string>();
  const records = new PendingRecords<PendingRecord>((pending) => record(options, pending), options.signal);
  let lastId: string | undefined;
  let backoffMs = 500;
  let connectedBefore = false;
  while (!options.signal.aborted) {
    try {
      const response = await sendRequest(`${options.server}/api/v1/endpoints/${endpoint.id}/stream?local_replays=true`, {
        headers: { ...authorization(options), accept: "text/event-stream", ...(lastId ? { "last-event-id": lastId } : {}) },
        idleTimeoutMs: STREAM_IDLE_TIMEOUT_MS,
        signal: options.signal,
      });
      if (response.statusCode !== 200) response.resume();
      if (response.statusCode === 401) throw new ListenError("The API key was refused (401). Check --api-key or REHOOK_API_KEY.");
      if (response.statusCode === 404) throw new ListenError(`The endpoint ${options.endpointSlug} no longer exists. Create it again, or listen to another one.`);
      if (response.statusCode !== 200) throw new Error(`the stream answered ${response.statusCode}`);
      options.report({ type: "connected", reconnected: connectedBefore, endpoint: options.endpointSlug, forward: options.forward });
      connectedBefore = true;
      backoffMs = 500;
      await records.flush();
      for await (const message of readSse(response)) {
        if (message.event === "replay") {
          await handleReplay(options, endpoint, JSON.parse(message.data) as StreamedEvent, records);
          continue;
        }
        if (message.event !== "webhook") continue;
        const event = JSON.parse(message.data) as StreamedEvent;
        if (seen.has(event.id)) continue;
        seen.add(event.id);
        if (seen.size > 20_000) seen.delete(seen.values().next().value!);
        lastId = event.id;
        summary.received += 1;
        await handle(options, endpoint, event, summary, records);
      }
      if (options.signal.aborted) break;
      throw new Error("the server closed the stream");
    } catch (error) {
      if (error instanceof ListenError) throw error;
      if (options.signal.aborted) break;
      options.report({ type: "reconnecting", reason: unreachableReason(error), retryInMs: backoffMs });
      await pause(backoffMs, options.signal);
      backoffMs = Math.min(backoffMs * 2, 10_000);
    }
  }
}

interface PendingRecord {
  eventId: string;
  body: { attempt_id: string; via: "listen"; local_url?: string; status: number | null; latency_ms: number; body: string | null; error: string | null };
}

/** The record of one local attempt: how it went, and the URL it went to. */
function recordOf(attemptId: string, result: LocalResult): PendingRecord["body"] {
  return {
    attempt_id: attemptId,
    via: "listen",
    ...(result.url ? { local_url: result.url } : {}),
    status: result.status,
    latency_ms: result.latencyMs,
    body: result.body,
    error: result.error,
  };
}

/** Records one local attempt as a "local" replay; false when the server could not take it now. */
async function record(options: ListenOptions, pending: PendingRecord): Promise<boolean> {
  try {
    const { status } = await apiJson(options, `/events/${pending.eventId}/local-replays`, { method: "POST", body: pending.body });
    // Most 4xx will not get better by retrying (the event was deleted, say): drop it; 408 and 429 will.
    return status === 201 || (status >= 400 && status < 500 && status !== 408 && status !== 429);
  } catch {
    return false;
  }
}

async function handle(options: ListenOptions, endpoint: ListenedEndpoint, event: StreamedEvent, summary: ListenSummary, records: PendingRecords<PendingRecord>): Promise<void> {
  let result = await sendLocally(options, endpoint, event);
  for (let attempt = 1; attempt <= options.retries && !isSuccess(result) && !options.signal.aborted; attempt += 1) {
    result = await sendLocally(options, endpoint, event);
  }
  const ok = isSuccess(result);
  if (ok) summary.ok += 1;
  else summary.failed += 1;
  options.report({ type: "event", ...newsOf(event, result) });
  await records.add({ eventId: event.id, body: recordOf(uuidv7(), result) });
}

/**
 * A Local replay from the dashboard: the stored event, sent once (the user is waiting for its
 * answer; --retry is for live events), reported, and recorded under the server's attempt id.
 */
async function handleReplay(options: ListenOptions, endpoint: ListenedEndpoint, event: StreamedEvent, records: PendingRecords<PendingRecord>): Promise<void> {
  if (!event.attempt_id) return;
  const result = await sendLocally(options, endpoint, event);
  options.report({ type: "replay", ...newsOf(event, result) });
  await records.add({ eventId: event.id, body: recordOf(event.attempt_id, result) });
}

/** What a line about one sent event says. */
function newsOf(event: StreamedEvent, result: LocalResult) {
  return {
    eventId: event.id,
    method: event.method,
    path: event.query ? `${event.path}?${event.query}` : event.path,
    source: event.source,
    eventType: event.event_type,
    status: result.status,
    ok: isSuccess(result),
    latencyMs: result.latencyMs,
    error: result.error,
  };
}

function isSuccess(result: LocalResult): boolean {
  return result.status !== null && result.status >= 200 && result.status < 300;
}
