export interface AttemptLimiterOptions {
  /** Attempts allowed per key within the window. */
  maxFailures: number;
  windowMs: number;
  now?: () => number;
}

export type AttemptVerdict = { allowed: true } | { allowed: false; retryAfterMs: number };

/** Keys remembered at most; past it, keys whose attempts all left the window are forgotten. */
const SWEEP_AT_KEYS = 10_000;

/**
 * Counts attempts per key (an email, an address) in a sliding window; past the limit,
 * attempts are refused until the oldest one leaves the window. In memory, per instance:
 * several instances each allow the limit, which still stops guessing at speed.
 */
export class AttemptLimiter {
  private readonly attempts = new Map<string, number[]>();
  private readonly now: () => number;

  constructor(private readonly options: AttemptLimiterOptions) {
    this.now = options.now ?? Date.now;
  }

  check(key: string): AttemptVerdict {
    const recent = this.recent(key);
    if (recent.length < this.options.maxFailures) return { allowed: true };
    return { allowed: false, retryAfterMs: recent[0]! + this.options.windowMs - this.now() };
  }

  /** Attempts of this key still inside the window. */
  count(key: string): number {
    return this.recent(key).length;
  }

  /**
   * Counts one attempt now. Callers count before the slow work (a password hash) so that
   * concurrent attempts cannot all pass the check first; the returned function takes this
   * one attempt back (a login that turned out to be right).
   */
  recordFailure(key: string): () => void {
    const at = this.now();
    const recent = this.recent(key);
    recent.push(at);
    this.attempts.set(key, recent);
    if (this.attempts.size > SWEEP_AT_KEYS) this.sweep();
    return () => {
      const list = this.attempts.get(key);
      const index = list?.lastIndexOf(at) ?? -1;
      if (index >= 0) list!.splice(index, 1);
    };
  }

  reset(key: string): void {
    this.attempts.delete(key);
  }

  private recent(key: string): number[] {
    const since = this.now() - this.options.windowMs;
    return (this.attempts.get(key) ?? []).filter((at) => at > since);
  }

  /** Bounded memory: forget keys whose attempts have all left the window. */
  private sweep(): void {
    for (const key of this.attempts.keys()) if (this.recent(key).length === 0) this.attempts.delete(key);
  }
}
