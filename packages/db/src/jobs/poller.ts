/**
 * The claim loop every background worker shares: run `poll` now, then again at once while
 * it says more may be due, else after `intervalMs`; `wake()` asks for a run now (one asked
 * for while a run is under way follows it), `wakeAfter(ms)` for one no later than that.
 * Runs never overlap.
 */
export class Poller {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  /** A run asked for by wakeAfter is due by this time (epoch ms). */
  private dueBy: number | undefined;
  /** When the scheduled run starts (epoch ms; undefined while one runs). */
  private nextRunAt: number | undefined;

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

  /** Polls within `delayMs` (sooner if a run is due sooner anyway). */
  wakeAfter(delayMs: number): void {
    if (this.stopped) return;
    const at = Date.now() + delayMs;
    if (this.dueBy !== undefined && this.dueBy <= at) return;
    if (!this.running && this.nextRunAt !== undefined && this.nextRunAt <= at) return;
    this.dueBy = at;
    if (!this.running) this.schedule(delayMs);
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
    this.nextRunAt = Date.now() + delayMs;
    this.timer = setTimeout(() => {
      this.nextRunAt = undefined;
      if (this.dueBy !== undefined && Date.now() >= this.dueBy) this.dueBy = undefined;
      // `poll` reports its own errors; one that escapes counts as "nothing more due".
      this.running = this.poll()
        .catch(() => false)
        .then((more) => {
          this.running = undefined;
          const again = more || this.again;
          this.again = false;
          const asked = this.dueBy === undefined ? this.intervalMs : Math.max(0, this.dueBy - Date.now());
          this.schedule(again ? 0 : Math.min(this.intervalMs, asked));
        });
    }, delayMs);
  }
}
