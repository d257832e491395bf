import { describe, expect, it, vi } from "vitest";
import { StartSlots } from "../src/start-slots.js";

// A rate-limited destination's booked slots: each item is handed on no sooner than its time,
// in time order (ties in the order they came), and stopping takes back what still waits.

describe("StartSlots", () => {
  it("hands items on at their time, in time order, never before it", async () => {
    const handed: { item: string; at: number }[] = [];
    const slots = new StartSlots<string>((items) => items.forEach((item) => handed.push({ item, at: Date.now() })));
    const start = Date.now();
    slots.add("third", start + 60);
    slots.add("first", start + 20);
    slots.add("second", start + 20);
    slots.add("now", start - 5);
    expect(slots.size).toBe(4);
    await vi.waitFor(() => expect(handed).toHaveLength(4), { timeout: 5_000 });
    expect(handed.map((entry) => entry.item)).toEqual(["now", "first", "second", "third"]);
    expect(handed[1]!.at).toBeGreaterThanOrEqual(start + 20);
    expect(handed[3]!.at).toBeGreaterThanOrEqual(start + 60);
    expect(slots.size).toBe(0);
  });

  it("drain takes back what still waits, and nothing is handed on after it", async () => {
    const handed: string[] = [];
    const slots = new StartSlots<string>((items) => handed.push(...items));
    const start = Date.now();
    slots.add("soon", start + 10);
    slots.add("later", start + 60_000);
    await vi.waitFor(() => expect(handed).toEqual(["soon"]), { timeout: 5_000 });
    expect(slots.drain()).toEqual(["later"]);
    expect(slots.size).toBe(0);
    slots.add("after-drain", start);
    await vi.waitFor(() => expect(handed).toEqual(["soon", "after-drain"]), { timeout: 5_000 });
  });
});
