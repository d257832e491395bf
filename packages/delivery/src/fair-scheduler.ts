/**
 * Decides which waiting deliveries may start, so that no destination takes the capacity of
 * the others: each key (an endpoint) has at most `perKeyLimit` items running, all keys
 * together at most `totalLimit`, and free slots go round robin across the keys that wait.
 * Items wait in a FIFO per key. An item whose `startBy` has passed is never started: it
 * comes back as expired (its lease is too old to send safely).
 *
 * Pure bookkeeping, no timers: the caller asks `next()` when something was added or done.
 */
export interface FairSchedulerOptions {
  perKeyLimit: number;
  totalLimit: number;
  /** The clock startBy is compared with (tests pass a fake one). */
  now?: () => number;
}

export interface Scheduled<T> {
  key: string;
  item: T;
}

interface Waiting<T> {
  item: T;
  startBy: number;
}

interface Lane<T> {
  running: number;
  waiting: Waiting<T>[];
  /** Index of the first waiting item (a shift on a long array copies it). */
  head: number;
}

export class FairScheduler<T> {
  private readonly lanes = new Map<string, Lane<T>>();
  /** Keys with waiting items, in the order they are served; each appears once. */
  private rotation: string[] = [];
  private runningCount = 0;
  private waitingCount = 0;
  private readonly now: () => number;

  constructor(private readonly options: FairSchedulerOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Items started and not yet done. */
  get running(): number {
    return this.runningCount;
  }

  /** Items waiting to start. */
  get waiting(): number {
    return this.waitingCount;
  }

  runningFor(key: string): number {
    return this.lanes.get(key)?.running ?? 0;
  }

  waitingFor(key: string): number {
    const lane = this.lanes.get(key);
    return lane ? lane.waiting.length - lane.head : 0;
  }

  add(key: string, item: T, startBy: number): void {
    const lane = this.lane(key);
    if (lane.waiting.length === lane.head) this.rotation.push(key);
    lane.waiting.push({ item, startBy });
    this.waitingCount += 1;
  }

  /**
   * What may start now, one item per key in turn until every waiting key is at its limit
   * (or the total is), and the waiting items met whose startBy had passed.
   */
  next(): { ready: Scheduled<T>[]; expired: T[] } {
    const ready: Scheduled<T>[] = [];
    const expired: T[] = [];
    const now = this.now();
    // Keys visited in a row without starting anything: once all of them are, nothing can start.
    let blockedInRow = 0;
    while (this.rotation.length > blockedInRow && this.runningCount < this.options.totalLimit) {
      const key = this.rotation.shift()!;
      const lane = this.lanes.get(key)!;
      while (lane.head < lane.waiting.length && lane.waiting[lane.head]!.startBy < now) expired.push(this.takeHead(lane).item);
      if (lane.head === lane.waiting.length) {
        this.forgetIfIdle(key, lane);
        continue;
      }
      if (lane.running >= this.options.perKeyLimit) {
        this.rotation.push(key);
        blockedInRow += 1;
        continue;
      }
      ready.push({ key, item: this.takeHead(lane).item });
      lane.running += 1;
      this.runningCount += 1;
      blockedInRow = 0;
      if (lane.head < lane.waiting.length) this.rotation.push(key);
    }
    return { ready, expired };
  }

  /** A started item of this key finished: its slot is free. */
  done(key: string): void {
    const lane = this.lanes.get(key);
    if (!lane || lane.running === 0) throw new Error(`nothing running for ${key}`);
    lane.running -= 1;
    this.runningCount -= 1;
    this.forgetIfIdle(key, lane);
  }

  /**
   * Takes back the newest waiting item of the key that has the most waiting, to keep memory
   * bounded: the destination that is furthest behind gives way, not the others.
   */
  shed(): T | undefined {
    let longest: [string, Lane<T>] | undefined;
    for (const entry of this.lanes) {
      const waiting = entry[1].waiting.length - entry[1].head;
      if (waiting > 0 && (!longest || waiting > longest[1].waiting.length - longest[1].head)) longest = entry;
    }
    if (!longest) return undefined;
    const [key, lane] = longest;
    const { item } = lane.waiting.pop()!;
    this.waitingCount -= 1;
    if (lane.head === lane.waiting.length) {
      this.rotation = this.rotation.filter((candidate) => candidate !== key);
      this.forgetIfIdle(key, lane);
    }
    return item;
  }

  /** Keys that already have a whole limit's worth waiting: fetching more for them gains nothing now. */
  fullKeys(): string[] {
    const full: string[] = [];
    for (const [key, lane] of this.lanes) {
      if (lane.waiting.length - lane.head >= this.options.perKeyLimit) full.push(key);
    }
    return full;
  }

  /** Every waiting item, taken out (stopping: they are not started). */
  drain(): T[] {
    const items: T[] = [];
    for (const [key, lane] of this.lanes) {
      while (lane.head < lane.waiting.length) items.push(this.takeHead(lane).item);
      this.forgetIfIdle(key, lane);
    }
    this.rotation = [];
    return items;
  }

  /** Takes every waiting item of one key (its running ones finish as they are). */
  dropWaiting(key: string): T[] {
    const lane = this.lanes.get(key);
    if (!lane) return [];
    const items: T[] = [];
    while (lane.head < lane.waiting.length) items.push(this.takeHead(lane).item);
    this.rotation = this.rotation.filter((candidate) => candidate !== key);
    this.forgetIfIdle(key, lane);
    return items;
  }

  private lane(key: string): Lane<T> {
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = { running: 0, waiting: [], head: 0 };
      this.lanes.set(key, lane);
    }
    return lane;
  }

  private takeHead(lane: Lane<T>): Waiting<T> {
    const taken = lane.waiting[lane.head]!;
    lane.head += 1;
    this.waitingCount -= 1;
    // Compact now and then, so a long-lived queue does not keep its consumed prefix.
    if (lane.head === lane.waiting.length) {
      lane.waiting = [];
      lane.head = 0;
    } else if (lane.head >= 1024 && lane.head * 2 >= lane.waiting.length) {
      lane.waiting = lane.waiting.slice(lane.head);
      lane.head = 0;
    }
    return taken;
  }

  private forgetIfIdle(key: string, lane: Lane<T>): void {
    if (lane.running === 0 && lane.head === lane.waiting.length) this.lanes.delete(key);
  }
}
