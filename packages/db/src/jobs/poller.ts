/**
 * The claim loop every background worker shares: run `poll` now, then again at once while
 * it says more may be due, else after `intervalMs`; `wake()` asks for a run now (one asked
 * for while a run is under way follows it). Runs never overlap.
 */
export class Poller {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;

  constructor(
    private readonly poll: () => Promise<boolean>,
    private readonly intervalMs: number,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  /** Polls as soon as possible (now, or right after the run under way). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) this.again = true;
    else this.schedule(0);
  }

  /** No more runs; resolves when the one under way (if any) has ended. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      // `poll` reports its own errors; one that escapes counts as "nothing more due".
      this.running = this.poll()
        .catch(() => false)
        .then((more) => {
          this.running = undefined;
          const again = more || this.again;
          this.again = false;
          this.schedule(again ? 0 : this.intervalMs);
        });
    }, delayMs);
  }
}
