import { fileURLToPath } from "node:url";
import { availableParallelism } from "node:os";
import path from "node:path";
import { Piscina } from "piscina";
import type { DeliveryResult, DeliveryTask } from "./types.js";

export interface DeliveryPool {
  run(task: DeliveryTask): Promise<DeliveryResult>;
  close(): Promise<void>;
}

export interface DeliveryPoolOptions {
  threads?: number;
  /** Requests in flight per worker: the work is waiting on the network, not on CPU. */
  concurrentPerThread?: number;
  /** The built worker module; defaults to worker.js beside this file (in dist/). */
  workerFile?: string;
}

/**
 * The built worker: beside this module in dist/, or in ../dist when this module runs from
 * source (tests); piscina runs JavaScript only.
 */
function defaultWorkerFile(): string {
  const here = fileURLToPath(new URL(".", import.meta.url));
  const relative = path.basename(here) === "src" ? "../dist/worker.js" : "./worker.js";
  return fileURLToPath(new URL(relative, import.meta.url));
}

/** The piscina pool of delivery workers, pointed at the built worker file. */
export function createDeliveryPool(options: DeliveryPoolOptions = {}): DeliveryPool {
  const threads = options.threads ?? Math.max(1, Math.min(4, availableParallelism() - 1));
  const pool = new Piscina<DeliveryTask, DeliveryResult>({
    filename: options.workerFile ?? defaultWorkerFile(),
    minThreads: threads,
    maxThreads: threads,
    concurrentTasksPerWorker: options.concurrentPerThread ?? 256,
    idleTimeout: 60_000,
  });
  return {
    run: (task) => pool.run(task),
    close: () => pool.destroy(),
  };
}
