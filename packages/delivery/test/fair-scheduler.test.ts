import { describe, expect, it } from "vitest";
import { FairScheduler } from "../src/fair-scheduler.js";

/** A scheduler on a clock the test moves by hand. */
function scheduler(perKeyLimit: number, totalLimit: number) {
  const clock = { now: 1_000 };
  const s = new FairScheduler<string>({ perKeyLimit, totalLimit, now: () => clock.now });
  return { s, clock };
}

const keysOf = (ready: Array<{ key: string; item: string }>) => ready.map((entry) => entry.key);
const itemsOf = (ready: Array<{ key: string; item: string }>) => ready.map((entry) => entry.item);

describe("fair scheduler", () => {
  it("serves waiting keys round robin when the total limit binds, whatever their backlog", () => {
    const { s } = scheduler(100, 4);
    for (let i = 0; i < 10; i += 1) s.add("a", `a${i}`, 2_000);
    s.add("b", "b0", 2_000);
    s.add("b", "b1", 2_000);
    s.add("c", "c0", 2_000);
    expect(keysOf(s.next().ready)).toEqual(["a", "b", "c", "a"]);
    // Each slot that frees goes to the next key in turn, not back to the biggest backlog.
    s.done("a");
    expect(keysOf(s.next().ready)).toEqual(["b"]);
    s.done("b");
    expect(keysOf(s.next().ready)).toEqual(["a"]);
    s.done("c");
    expect(keysOf(s.next().ready)).toEqual(["a"]);
    expect(s.running).toBe(4);
    expect(s.waiting).toBe(6);
  });

  it("keeps each key to its own limit and lets the others through", () => {
    const { s } = scheduler(2, 100);
    for (let i = 0; i < 5; i += 1) s.add("slow", `slow${i}`, 2_000);
    s.add("fast", "fast0", 2_000);
    expect(itemsOf(s.next().ready)).toEqual(["slow0", "fast0", "slow1"]);
    expect(s.runningFor("slow")).toBe(2);
    s.done("fast");
    s.add("fast", "fast1", 2_000);
    expect(itemsOf(s.next().ready)).toEqual(["fast1"]);
    // slow has 3 waiting, a whole limit's worth: no use fetching more of it yet.
    expect(s.fullKeys()).toEqual(["slow"]);
    // In FIFO order per key as its slots free.
    s.done("slow");
    expect(itemsOf(s.next().ready)).toEqual(["slow2"]);
    expect(s.next().ready).toEqual([]);
  });

  it("never starts an item whose startBy has passed: it comes back as expired, counted from when it was added", () => {
    const { s, clock } = scheduler(1, 100);
    s.add("k", "first", 1_500);
    s.add("k", "late", 1_500);
    s.add("k", "later", 5_000);
    expect(itemsOf(s.next().ready)).toEqual(["first"]);
    clock.now = 1_501;
    s.done("k");
    const { ready, expired } = s.next();
    expect(expired).toEqual(["late"]);
    expect(itemsOf(ready)).toEqual(["later"]);
  });

  it("sheds the newest waiting item of the longest queue", () => {
    const { s } = scheduler(1, 100);
    ["a0", "a1", "a2", "a3"].forEach((item) => s.add("a", item, 2_000));
    ["b0", "b1"].forEach((item) => s.add("b", item, 2_000));
    s.next();
    expect(s.waiting).toBe(4);
    expect(s.shed()).toBe("a3");
    expect(s.shed()).toBe("a2");
    // a and b now have one waiting each: either may give way, never an empty queue.
    expect(["a1", "b1"]).toContain(s.shed());
    expect(s.waiting).toBe(1);
    s.done("a");
    s.done("b");
    expect(s.next().ready).toHaveLength(1);
    expect(s.shed()).toBeUndefined();
  });

  it("forgets a key once nothing of it runs or waits, and drains what waits", () => {
    const { s } = scheduler(1, 100);
    s.add("a", "a0", 2_000);
    s.add("a", "a1", 2_000);
    s.next();
    expect(s.drain()).toEqual(["a1"]);
    s.done("a");
    expect(s.fullKeys()).toEqual([]);
    expect(() => s.done("a")).toThrow(/nothing running/);
  });

  it("drops one key's waiting items (a tripped breaker) and keeps serving the others", () => {
    const { s } = scheduler(1, 10);
    for (let i = 0; i < 3; i += 1) s.add("paused", `p${i}`, 2_000);
    s.add("other", "o0", 2_000);
    s.add("other", "o1", 2_000);
    expect(itemsOf(s.next().ready)).toEqual(["p0", "o0"]);
    expect(s.dropWaiting("paused")).toEqual(["p1", "p2"]);
    expect(s.waitingFor("paused")).toBe(0);
    expect(s.runningFor("paused")).toBe(1); // the send under way finishes
    s.done("other");
    s.done("paused");
    expect(itemsOf(s.next().ready)).toEqual(["o1"]);
  });
});
