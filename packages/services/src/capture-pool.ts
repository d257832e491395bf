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
}

export interface CapturePoolOptions {
  threads?: number;
  /** The built worker module; defaults to capture-worker.js beside this file (in dist/). */
  workerFile?: string;
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
 * One worker thread by default: the work is CPU, bounded per capture (the body's size, the
 * filters' work budget), and captures that need the worker wait in its queue while the others
 * do not. It starts with the server and ends with close().
 */
export function createCapturePool(options: CapturePoolOptions = {}): CapturePool {
  const threads = options.threads ?? 1;
  const pool = new Piscina({
    filename: options.workerFile ?? defaultWorkerFile(),
    minThreads: threads,
    maxThreads: threads,
  });
  // A capture asks for its sender and then its routes: the body is copied once for both.
  const copies = new WeakMap<Uint8Array, Promise<Uint8Array>>();
  const sharedOnce = (body: Uint8Array) => {
    let copy = copies.get(body);
    if (!copy) copies.set(body, (copy = shared(body)));
    return copy;
  };
  return {
    route: async (task) => pool.run({ ...task, request: { ...task.request, body: await sharedOnce(task.request.body) } } satisfies RouteTask, { name: "route" }) as Promise<FilterRouting>,
    sender: async (task) => pool.run({ headers: task.headers, body: await sharedOnce(task.body) } satisfies SenderTask, { name: "sender" }) as Promise<SenderIdentity>,
    close: () => pool.destroy(),
  };
}
