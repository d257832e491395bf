/**
 * Holds items until their start time (a rate-limited destination's booked slots), then hands
 * them on in time order. One timer serves them all, whatever their number.
 */
export class StartSlots<T> {
  /** Sorted by `at`; items due at the same moment keep the order they came in. */
  private readonly queue: { at: number; item: T }[] = [];
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly onDue: (items: T[]) => void,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.queue.length;
  }

  /** Hands `item` on at `at` (epoch ms; at once when that has passed). */
  add(item: T, at: number): void {
    let low = 0;
    let high = this.queue.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (this.queue[middle]!.at <= at) low = middle + 1;
      else high = middle;
    }
    this.queue.splice(low, 0, { at, item });
    if (low === 0) this.arm();
  }

  /** Takes back everything still waiting (stopping). */
  drain(): T[] {
    clearTimeout(this.timer);
    this.timer = undefined;
    return this.queue.splice(0).map((entry) => entry.item);
  }

  private arm(): void {
    clearTimeout(this.timer);
    const head = this.queue[0];
    this.timer = head ? setTimeout(() => this.release(), Math.max(0, head.at - this.now())) : undefined;
  }

  private release(): void {
    const now = this.now();
    let due = 0;
    while (due < this.queue.length && this.queue[due]!.at <= now) due += 1;
    const items = this.queue.splice(0, due).map((entry) => entry.item);
    this.arm();
    if (items.length > 0) this.onDue(items);
  }
}
