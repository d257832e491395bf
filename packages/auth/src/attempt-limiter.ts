export interface AttemptLimiterOptions {
  /** Failed attempts allowed per key within the window. */
  maxFailures: number;
  windowMs: number;
  now?: () => number;
}

export type AttemptVerdict = { allowed: true } | { allowed: false; retryAfterMs: number };

/**
 * Counts failed attempts per key (an email, an IP address) in a sliding window; past the
 * limit, attempts are refused until the oldest failure leaves the window. In memory, per
 * instance: several instances each allow the limit, which still stops guessing at speed.
 */
export class AttemptLimiter {
  private readonly failures = new Map<string, number[]>();
  private readonly now: () => number;

  constructor(private readonly options: AttemptLimiterOptions) {
    this.now = options.now ?? Date.now;
  }

  check(key: string): AttemptVerdict {
    const recent = this.recent(key);
    if (recent.length < this.options.maxFailures) return { allowed: true };
    return { allowed: false, retryAfterMs: recent[0]! + this.options.windowMs - this.now() };
  }

  recordFailure(key: string): void {
    const recent = this.recent(key);
    recent.push(this.now());
    this.failures.set(key, recent);
    if (this.failures.size > 10_000) this.sweep();
  }

  reset(key: string): void {
    this.failures.delete(key);
  }

  private recent(key: string): number[] {
    const since = this.now() - this.options.windowMs;
    return (this.failures.get(key) ?? []).filter((at) => at > since);
  }

  /** Bounded memory: forget keys whose failures have all left the window. */
  private sweep(): void {
    for (const key of this.failures.keys()) if (this.recent(key).length === 0) this.failures.delete(key);
  }
}
