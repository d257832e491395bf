/**
 * Local attempts on their way to the server, sent in order. One the server could not take
 * (it is restarting) stays first in line and is sent again with backoff, whether or not
 * another event arrives; the server stores each attempt_id once, so a record whose answer
 * was lost is not stored twice. At most `maxPending` wait: past that the oldest is dropped.
 */
export class PendingRecords<T> {
  private readonly queue: T[] = [];
  private draining: Promise<void> | undefined;
  private retryTimer: NodeJS.Timeout | undefined;
  private retryMs = RETRY_FIRST_MS;

  constructor(
    private readonly send: (item: T) => Promise<boolean>,
    private readonly signal: AbortSignal,
    private readonly maxPending = 10_000,
  ) {}

  get size(): number {
    return this.queue.length;
  }

  /** Queues a record and sends what waits, this one included, as far as the server takes them. */
  add(item: T): Promise<void> {
    if (this.queue.length >= this.maxPending) this.queue.shift();
    this.queue.push(item);
    return this.flush();
  }

  /** Sends what waits now (after a reconnect, say); resolves when the server took all or refused one. */
  flush(): Promise<void> {
    this.draining ??= this.drain().finally(() => {
      this.draining = undefined;
      // One added while this run was ending would otherwise wait for the next add.
      if (this.queue.length > 0 && !this.retryTimer && !this.signal.aborted) void this.flush();
    });
    return this.draining;
  }

  private async drain(): Promise<void> {
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    while (this.queue.length > 0 && !this.signal.aborted) {
      if (!(await this.send(this.queue[0]!))) {
        this.retryLater();
        return;
      }
      this.queue.shift();
      this.retryMs = RETRY_FIRST_MS;
    }
  }

  private retryLater(): void {
    if (this.signal.aborted) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      void this.flush();
    }, this.retryMs);
    this.retryTimer.unref();
    this.retryMs = Math.min(this.retryMs * 2, RETRY_MAX_MS);
  }
}

const RETRY_FIRST_MS = 500;
const RETRY_MAX_MS = 10_000;
