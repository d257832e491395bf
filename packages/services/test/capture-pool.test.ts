import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { CaptureWorkerUnavailable, createCapturePool, type RouteTask } from "../src/index.js";

// The capture worker's pool (capture-pool.ts) with real threads: a bounded queue, a time limit
// per task, no thread until one is needed, and failures that fail the capture (503), never hang it.

const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const task: RouteTask = { filters: "[]", request: { method: "POST", path: "", query: "", headers: [], body: new Uint8Array(8) }, budget: 1000 };

describe.concurrent("the capture worker pool", () => {
  it("starts no thread until a task needs one, and ends it when idle", async () => {
    const pool = createCapturePool({ idleTimeoutMs: 50 });
    try {
      expect(pool.threadCount).toBe(0);
      expect(await pool.route({ ...task, filters: JSON.stringify([{ id: "d", filter: { method: "POST" } }]) })).toEqual({ matched: ["d"], cutShort: [] });
      await waitFor(() => pool.threadCount === 0, "the idle thread ended");
    } finally {
      await pool.close();
    }
  });

  it("fails a task that takes longer than its time limit, and the next one runs", async () => {
    const pool = createCapturePool({ workerFile: fixture("stuck-capture-worker.mjs"), timeoutMs: 2_000 });
    try {
      await expect(pool.route(task)).rejects.toThrow(new CaptureWorkerUnavailable("the task took longer than 2000 ms"));
      expect(await pool.sender({ headers: [], body: new Uint8Array(8) })).toEqual({ source: null, eventType: null });
    } finally {
      await pool.close();
    }
  });

  it("refuses a task at once when the queue is full", async () => {
    const pool = createCapturePool({ workerFile: fixture("stuck-capture-worker.mjs"), maxQueue: 1 });
    const running = pool.route(task).catch((error: unknown) => error);
    // The first runs (stuck); the second waits; the third finds the queue full.
    await waitFor(() => pool.threadCount === 1, "the thread started");
    const waiting = pool.route(task).catch((error: unknown) => error);
    await expect(pool.route(task)).rejects.toThrow(new CaptureWorkerUnavailable("1 captures already wait for it"));
    await pool.close();
    // Closing fails the ones in flight too: none hangs.
    expect(await running).toBeInstanceOf(CaptureWorkerUnavailable);
    expect(await waiting).toBeInstanceOf(CaptureWorkerUnavailable);
  });

  it("turns a worker that cannot start into failed tasks, not an uncaught exception", async () => {
    const errors: Error[] = [];
    const pool = createCapturePool({ workerFile: fixture("broken-capture-worker.mjs"), timeoutMs: 1_000, onError: (error) => errors.push(error) });
    try {
      await expect(pool.route(task)).rejects.toBeInstanceOf(CaptureWorkerUnavailable);
    } finally {
      await pool.close();
    }
  });

  it("refuses to be made without its built worker, in one line", () => {
    expect(() => createCapturePool({ workerFile: "/nonexistent/capture-worker.js" })).toThrow("the capture worker /nonexistent/capture-worker.js is missing: build @rehook/services (pnpm build)");
  });
});
