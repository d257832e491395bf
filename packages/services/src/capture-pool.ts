import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { Piscina } from "piscina";
import type { FilterRequest, FilterRouting, HeaderList, SenderIdentity } from "@rehook/core";

/** One capture's filters: the endpoint's `[{id, filter}]` as JSON text (the worker caches them compiled by it), the request and the work budget. */
export interface RouteTask {
  filters: string;
  request: FilterRequest;
  budget: number;
}

export interface SenderTask {
  headers: HeaderList;
  body: Uint8Array;
}

/**
 * The work a capture does on a large body, on a worker thread: sender detection (a scan of the
 * whole body) and routing filters (JSON.parse of the body, and a filter's full work budget)
 * never hold the event loop. A body travels as one copy into shared memory, made a slice per turn.
 */
export interface CapturePool {
  route(task: RouteTask): Promise<FilterRouting>;
  sender(task: SenderTask): Promise<SenderIdentity>;
  close(): Promise<void>;
  /** Threads running now (none until the first task, none again once idle). */
  readonly threadCount: number;
}

export interface CapturePoolOptions {
  threads?: number;
  /** The built worker module; defaults to capture-worker.js beside this file (in dist/). */
  workerFile?: string;
  /** Tasks that may wait for a thread (default CAPTURE_WORKER_MAX_QUEUE); past them a capture fails at once. */
  maxQueue?: number;
  /** How long one task may take, waiting included (default CAPTURE_WORKER_TIMEOUT_MS); past it the capture fails. */
  timeoutMs?: number;
  /** How long an idle thread lives before it ends (default CAPTURE_WORKER_IDLE_MS). */
  idleTimeoutMs?: number;
  /** Told of a thread's failure outside any task (a task's own failure fails its capture instead). */
  onError?: (error: Error) => void;
}

/**
 * Captures that may wait for the worker. A task takes at most a few hundred milliseconds (a
 * 10 MiB body parsed, a work budget spent), so the last of 32 waits seconds, not minutes; a
 * capture past them fails at once (503, Retry-After) instead of queueing without bound.
 */
export const CAPTURE_WORKER_MAX_QUEUE = 32;
/** A task that has not finished after this long (waiting included) fails its capture (503); its thread is ended. */
export const CAPTURE_WORKER_TIMEOUT_MS = 10_000;
/** The thread starts on the first task and ends after this long without one: processes that never need it never start it. */
export const CAPTURE_WORKER_IDLE_MS = 60_000;

/** A capture the worker could not serve (queue full, timed out, thread failed): the capture answers 503 with Retry-After. */
export class CaptureWorkerUnavailable extends Error {
  constructor(reason: string, options?: { cause?: unknown }) {
    super(`capture worker unavailable: ${reason}`, options);
    this.name = "CaptureWorkerUnavailable";
  }
}

/** The built worker: beside this module in dist/, or in ../dist when this module runs from source (tests); piscina runs JavaScript only. */
function defaultWorkerFile(): string {
  const here = fileURLToPath(new URL(".", import.meta.url));
  const relative = path.basename(here) === "src" ? "../dist/capture-worker.js" : "./capture-worker.js";
  return fileURLToPath(new URL(relative, import.meta.url));
}

/** Bytes copied into shared memory per turn of the event loop: a 10 MiB body is a few dozen short turns, never one long one. */
const COPY_SLICE_BYTES = 256 * 1024;

/**
 * The body in shared memory, posted to the worker without being copied again (postMessage
 * copies a plain buffer whole, in one turn). Copied a slice per turn of the event loop.
 */
async function shared(body: Uint8Array): Promise<Uint8Array> {
  const copy = new Uint8Array(new SharedArrayBuffer(body.byteLength));
  for (let at = 0; at < body.byteLength; at += COPY_SLICE_BYTES) {
    if (at > 0) await new Promise((resolve) => setImmediate(resolve));
    copy.set(body.subarray(at, at + COPY_SLICE_BYTES), at);
  }
  return copy;
}

/**
 * One worker thread at most by default: the work is CPU, bounded per capture (the body's size,
 * the filters' work budget), and captures that need the worker wait in its bounded queue while
 * the others do not. The thread starts on the first task (never for a process that sends none)
 * and ends when idle or with close(). Throws (one line) when the built worker is missing.
 */
export function createCapturePool(options: CapturePoolOptions = {}): CapturePool {
  const threads = options.threads ?? 1;
  const filename = options.workerFile ?? defaultWorkerFile();
  if (!existsSync(filename)) throw new Error(`the capture worker ${filename} is missing: build @rehook/services (pnpm build)`);
  const maxQueue = options.maxQueue ?? CAPTURE_WORKER_MAX_QUEUE;
  const timeoutMs = options.timeoutMs ?? CAPTURE_WORKER_TIMEOUT_MS;
  const pool = new Piscina({ filename, minThreads: 0, maxThreads: threads, maxQueue, idleTimeout: options.idleTimeoutMs ?? CAPTURE_WORKER_IDLE_MS });
  pool.on("error", (error: unknown) => options.onError?.(error instanceof Error ? error : new Error(String(error))));
  const run = async (task: RouteTask | SenderTask, name: "route" | "sender"): Promise<unknown> => {
    // Checked here, not left to piscina's own error: the answer says which limit it was.
    if (pool.queueSize >= maxQueue) throw new CaptureWorkerUnavailable(`${maxQueue} captures already wait for it`);
    try {
      return await pool.run(task, { name, signal: AbortSignal.timeout(timeoutMs) });
    } catch (error) {
      if (error instanceof Error && error.name === "AbortError") throw new CaptureWorkerUnavailable(`the task took longer than ${timeoutMs} ms`, { cause: error });
      throw new CaptureWorkerUnavailable(error instanceof Error ? error.message : String(error), { cause: error });
    }
  };
  // A capture asks for its sender and then its routes: the body is copied once for both.
  const copies = new WeakMap<Uint8Array, Promise<Uint8Array>>();
  const sharedOnce = (body: Uint8Array) => {
    let copy = copies.get(body);
    if (!copy) copies.set(body, (copy = shared(body)));
    return copy;
  };
  return {
    route: async (task) => (await run({ ...task, request: { ...task.request, body: await sharedOnce(task.request.body) } }, "route")) as FilterRouting,
    sender: async (task) => (await run({ headers: task.headers, body: await sharedOnce(task.body) }, "sender")) as SenderIdentity,
    close: () => pool.destroy(),
    get threadCount() {
      return pool.threads.length;
    },
  };
}
