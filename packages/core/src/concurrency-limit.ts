/** Thrown when more work is waiting than the limit allows: the caller answers "busy, retry". */
export class QueueFullError extends Error {
  override name = "QueueFullError";
}

/**
 * Runs at most `max` tasks at once; up to `maxWaiting` more wait their turn in order, and past
 * that new work is refused at once rather than queued without bound. Used where slow work
 * shares libuv's thread pool: password hashing (auth) and DNS lookups (delivery workers).
 */
export class ConcurrencyLimit {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private max: number,
    private maxWaiting: number = Number.POSITIVE_INFINITY,
  ) {
    if (!Number.isInteger(max) || max < 1) throw new RangeError(`a concurrency limit must be a positive integer, not ${max}`);
  }

  /** Changes the limits; work already running or waiting is unaffected. */
  configure(max: number, maxWaiting: number): void {
    this.max = max;
    this.maxWaiting = maxWaiting;
  }

  get active(): number {
    return this.running;
  }

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.max) {
      if (this.waiting.length >= this.maxWaiting) throw new QueueFullError("too much work is waiting");
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running += 1;
    }
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next waiter (running stays the same), or give it up.
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}
