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

/** Bytes copied per turn of the event loop: a 10 MiB body is a few dozen short turns, never one long one. */
const COPY_SLICE_BYTES = 256 * 1024;

/**
 * A copy of the body that the worker borrows: moved to the thread with its task (postMessage
 * would copy a plain buffer whole, in one turn) and moved back with the answer, so it is the
 * main thread's garbage once the capture lets go of it. (A SharedArrayBuffer would stay alive
 * until the worker's own heap is collected, which an idle thread may not do for a long time:
 * committed bodies must not stay in memory while their answers wait.) Copied a slice per turn.
 */
async function copyOf(body: Uint8Array): Promise<Uint8Array> {
  const copy = new Uint8Array(new ArrayBuffer(body.byteLength));
  for (let at = 0; at < body.byteLength; at += COPY_SLICE_BYTES) {
    if (at > 0) await new Promise((resolve) => setImmediate(resolve));
    copy.set(body.subarray(at, at + COPY_SLICE_BYTES), at);
  }
  return copy;
}

/** What the worker answers: its result, and the borrowed body moved back. */
export interface Borrowed<T> {
  result: T;
  body: Uint8Array;
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
  const run = async (task: RouteTask | SenderTask, body: ArrayBufferLike, name: "route" | "sender"): Promise<Borrowed<unknown>> => {
    // Checked here, not left to piscina's own error: the answer says which limit it was.
    if (pool.queueSize >= maxQueue) throw new CaptureWorkerUnavailable(`${maxQueue} captures already wait for it`);
    try {
      return (await pool.run(task, { name, signal: AbortSignal.timeout(timeoutMs), transferList: [body as ArrayBuffer] })) as Borrowed<unknown>;
    } catch (error) {
      if (error instanceof Error && error.name === "AbortError") throw new CaptureWorkerUnavailable(`the task took longer than ${timeoutMs} ms`, { cause: error });
      throw new CaptureWorkerUnavailable(error instanceof Error ? error.message : String(error), { cause: error });
    }
  };
  // A capture asks for its sender and then its routes: the body is copied once for both, each
  // task handing the copy back for the next (a task that finds it lent out makes its own).
  const idleCopies = new WeakMap<Uint8Array, Uint8Array>();
  const borrow = async <T>(original: Uint8Array, name: "route" | "sender", task: (body: Uint8Array) => RouteTask | SenderTask): Promise<T> => {
    const idle = idleCopies.get(original);
    idleCopies.delete(original);
    const body = idle ?? (await copyOf(original));
    const answer = await run(task(body), body.buffer, name);
    if (!idleCopies.has(original)) idleCopies.set(original, answer.body);
    return answer.result as T;
  };
  return {
    route: (task) => borrow<FilterRouting>(task.request.body, "route", (body) => ({ ...task, request: { ...task.request, body } })),
    sender: (task) => borrow<SenderIdentity>(task.body, "sender", (body) => ({ headers: task.headers, body })),
    close: () => pool.destroy(),
    get threadCount() {
      return pool.threads.length;
    },
  };
}
