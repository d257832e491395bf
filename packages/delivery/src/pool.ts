import { fileURLToPath } from "node:url";
import { availableParallelism } from "node:os";
import path from "node:path";
import { MessageChannel } from "node:worker_threads";
import { Piscina } from "piscina";
import type { DeliveryBatch, DeliveryResult, DeliveryTask, ResultMessage } from "./types.js";

export interface DeliveryPool {
  /**
   * Sends the tasks side by side in one worker; onResult hears each as soon as it is done
   * (null: not sent because its startBy had passed). Settles once every result is in, or
   * rejects if the worker died (the results not heard of were never confirmed).
   */
  runBatch(tasks: DeliveryTask[], onResult: (index: number, result: DeliveryResult | null) => void): Promise<void>;
  /** One request: for single sends (tests, tools). */
  run(task: DeliveryTask): Promise<DeliveryResult>;
  close(): Promise<void>;
}

export interface DeliveryPoolOptions {
  threads?: number;
  /** Batches in progress per worker: the work is waiting on the network, not on CPU. */
  concurrentPerThread?: number;
  /** The built worker module; defaults to worker.js beside this file (in dist/). */
  workerFile?: string;
}

/**
 * Delivery threads of one process: one per core beyond the first, at most 4, shared out among
 * the processes of `rehook start --workers N` so N of them do not start N times as many.
 */
export function defaultDeliveryThreads(processes = 1): number {
  return Math.max(1, Math.floor(Math.min(4, availableParallelism() - 1) / processes));
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

/**
 * The piscina pool of delivery workers. A batch costs one task message and one result
 * message per turn of the worker's event loop, instead of two messages per request.
 */
export function createDeliveryPool(options: DeliveryPoolOptions = {}): DeliveryPool {
  const threads = options.threads ?? defaultDeliveryThreads();
  const pool = new Piscina<DeliveryBatch, void>({
    filename: options.workerFile ?? defaultWorkerFile(),
    minThreads: threads,
    maxThreads: threads,
    concurrentTasksPerWorker: options.concurrentPerThread ?? 256,
    idleTimeout: 60_000,
    // Idle workers must keep running their event loop: with piscina's default ('sync') they
    // block in Atomics.wait between tasks, undici's keep-alive timers and the socket's FIN
    // go unprocessed, and the next request is written to a connection the server has closed.
    atomics: "disabled",
  });

  async function runBatch(tasks: DeliveryTask[], onResult: (index: number, result: DeliveryResult | null) => void): Promise<void> {
    if (tasks.length === 0) return;
    const { port1, port2 } = new MessageChannel();
    let heard = 0;
    // The result port and piscina's own channel are not ordered with each other: wait for both.
    const allHeard = new Promise<void>((resolve) => {
      port1.on("message", (message: ResultMessage) => {
        for (const [index, result] of message) onResult(index, result);
        heard += message.length;
        if (heard === tasks.length) resolve();
      });
    });
    try {
      await pool.run({ tasks, results: port2 }, { transferList: [port2] });
      await allHeard;
    } finally {
      port1.close();
    }
  }

  return {
    runBatch,
    async run(task) {
      let answer: DeliveryResult | null = null;
      await runBatch([task], (_index, result) => (answer = result));
      if (!answer) throw new Error("the request was not sent: its start deadline had passed");
      return answer;
    },
    close: () => pool.destroy(),
  };
}
