import { describe, expect, it } from "vitest";
import { ConcurrencyLimit, QueueFullError } from "../src/index.js";

describe("concurrency limit", () => {
  it("runs at most max tasks at once, queues up to maxWaiting, and refuses the rest at once", async () => {
    const limit = new ConcurrencyLimit(2, 2);
    let running = 0;
    let peak = 0;
    const releases: Array<() => void> = [];
    const task = () =>
      limit.run(async () => {
        running += 1;
        peak = Math.max(peak, running);
        await new Promise<void>((resolve) => releases.push(resolve));
        running -= 1;
      });
    const accepted = [task(), task(), task(), task()];
    await expect(task()).rejects.toBeInstanceOf(QueueFullError);
    expect(limit.active).toBe(2);
    while (releases.length > 0 || running > 0) {
      releases.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await Promise.all(accepted);
    expect(peak).toBe(2);
    expect(limit.active).toBe(0);
  });
});
