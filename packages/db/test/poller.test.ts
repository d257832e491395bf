import { afterEach, describe, expect, it, vi } from "vitest";
import { Poller } from "../src/index.js";

// The shared claim loop's timing, on fake timers: runs never overlap, "more" runs again at
// once, and wakeAfter brings the next run forward without ever pushing one back.

afterEach(() => {
  vi.useRealTimers();
});

describe("Poller", () => {
  it("polls at once, then every interval; wakeAfter brings the next run forward, once", async () => {
    vi.useFakeTimers();
    const runs: number[] = [];
    let asked = false;
    const poller = new Poller(async () => {
      runs.push(Date.now());
      if (!asked) {
        asked = true;
        poller.wakeAfter(100);
      }
      return false;
    }, 1_000);
    const start = Date.now();
    poller.start();
    await vi.advanceTimersByTimeAsync(0);
    await vi.advanceTimersByTimeAsync(100);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(runs.map((at) => at - start)).toEqual([0, 100, 1_100]);
    // A later wakeAfter never delays a run due sooner.
    poller.wakeAfter(5_000);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(runs.map((at) => at - start)).toEqual([0, 100, 1_100, 2_100]);
    await poller.stop();
  });
});
