/**
 * Requests per key per minute, in fixed one-minute windows (per instance). Answers how long
 * to wait when the key is over its limit.
 */
export class PerKeyRateLimit {
  private windows = new Map<string, { start: number; count: number }>();

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** null when allowed; otherwise the seconds until the key may ask again. */
  take(key: string): number | null {
    const now = this.now();
    let window = this.windows.get(key);
    if (!window || now - window.start >= 60_000) {
      if (this.windows.size > 10_000) this.windows = new Map(); // bounded memory
      window = { start: now, count: 0 };
      this.windows.set(key, window);
    }
    window.count += 1;
    return window.count <= this.perMinute ? null : Math.max(1, Math.ceil((window.start + 60_000 - now) / 1000));
  }
}
