import { afterAll, describe, expect, it } from "vitest";
import { fileURLToPath } from "node:url";
import { createDeliveryPool } from "../src/index.js";
import { startSink } from "@rehook/vitest-config/sink";

// Piscina runs JavaScript: point it at the built worker (pnpm test builds first).
const pool = createDeliveryPool({ threads: 2, workerFile: fileURLToPath(new URL("../dist/worker.js", import.meta.url)) });
afterAll(() => pool.close());

describe("delivery pool", () => {
  it("runs many requests at once across worker threads", async () => {
    // The sink holds every answer until 50 requests wait at once: only concurrent
    // delivery gets there (a fallback releases them after 10 s so a failure cannot hang).
    const waiting: Array<() => void> = [];
    let mostWaiting = 0;
    const release = () => waiting.splice(0).forEach((answer) => answer());
    const fallback = setTimeout(release, 10_000);
    const sink = await startSink((_req, res) => {
      waiting.push(() => res.end("ok"));
      mostWaiting = Math.max(mostWaiting, waiting.length);
      if (waiting.length >= 50) release();
    });
    try {
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          pool.run({
            url: `http://127.0.0.1:${sink.port}/e/${i}`,
            method: "POST",
            headers: [["Content-Type", "application/json"]],
            body: Buffer.from(JSON.stringify({ i })),
            timeoutMs: 15_000,
            maxResponseBytes: 1024,
            allowPrivate: true,
          }),
        ),
      );
      expect(results.every((r) => r.ok && r.status === 200)).toBe(true);
      expect(sink.received).toHaveLength(200);
      expect(mostWaiting).toBeGreaterThanOrEqual(50);
    } finally {
      clearTimeout(fallback);
      release();
      await sink.close();
    }
  });

  it("does not send a task whose start deadline has passed, and says so with a null result", async () => {
    const sink = await startSink((_req, res) => res.end("ok"));
    try {
      const task = (startBy: number, i: number) => ({
        url: `http://127.0.0.1:${sink.port}/late/${i}`,
        method: "POST",
        headers: [],
        body: Buffer.from("{}"),
        timeoutMs: 5_000,
        maxResponseBytes: 1024,
        allowPrivate: true,
        startBy,
      });
      const results: Array<[number, boolean | null]> = [];
      await pool.runBatch([task(Date.now() - 1, 0), task(Date.now() + 60_000, 1)], (index, result) => results.push([index, result && result.ok]));
      expect(results.sort()).toEqual([[0, null], [1, true]]);
      expect(sink.received.map((r) => r.url)).toEqual(["/late/1"]);
    } finally {
      await sink.close();
    }
  });
});
