import { AttemptLimiter, type AttemptVerdict } from "./attempt-limiter.js";

export interface LoginLimits {
  windowMs: number;
  /** Failed logins for one email from one address: the ordinary guessing limit. */
  perEmailAndAddress: number;
  /** Failed logins for one email from anywhere: past it, only addresses that have not failed may try. */
  perEmail: number;
  /** Failed logins from one address for any email: high, because many people can share one NAT. */
  perAddress: number;
}

export const DEFAULT_LOGIN_LIMITS: LoginLimits = { windowMs: 15 * 60_000, perEmailAndAddress: 10, perEmail: 10, perAddress: 100 };

export type LoginVerdict =
  /** succeeded: the password was right. abandoned: no verdict was reached (busy, database down), so it is not held against anyone. */
  | { allowed: true; succeeded(): void; abandoned(): void }
  | { allowed: false; retryAfterMs: number };

const refused = (verdict: AttemptVerdict): verdict is { allowed: false; retryAfterMs: number } => !verdict.allowed;

/**
 * Failed-login limits kept per email, per address and per email-and-address, so one attacker
 * neither guesses at speed nor locks others out: an email under attack still admits a correct
 * password from an address that has not failed, and an address shared behind a NAT is only
 * stopped at a much higher count. Every attempt is counted as a failure when it begins (before
 * the password hash runs, so concurrent attempts cannot slip past the check) and taken back
 * when it turns out right.
 */
export class LoginThrottle {
  private readonly pairs: AttemptLimiter;
  private readonly emails: AttemptLimiter;
  private readonly addresses: AttemptLimiter;

  constructor(limits: LoginLimits = DEFAULT_LOGIN_LIMITS, now?: () => number) {
    const window = { windowMs: limits.windowMs, ...(now ? { now } : {}) };
    this.pairs = new AttemptLimiter({ maxFailures: limits.perEmailAndAddress, ...window });
    this.emails = new AttemptLimiter({ maxFailures: limits.perEmail, ...window });
    this.addresses = new AttemptLimiter({ maxFailures: limits.perAddress, ...window });
  }

  begin(email: string, address: string | null): LoginVerdict {
    const pair = `${email}\n${address ?? "-"}`;
    const pairVerdict = this.pairs.check(pair);
    if (refused(pairVerdict)) return pairVerdict;
    if (address) {
      const addressVerdict = this.addresses.check(address);
      if (refused(addressVerdict)) return addressVerdict;
    }
    const emailVerdict = this.emails.check(email);
    const addressHasFailed = address === null || this.addresses.count(address) > 0;
    if (refused(emailVerdict) && addressHasFailed) return emailVerdict;

    const undo = [this.pairs.recordFailure(pair), this.emails.recordFailure(email), ...(address ? [this.addresses.recordFailure(address)] : [])];
    const takeBack = () => {
      for (const undoOne of undo) undoOne();
    };
    return {
      allowed: true,
      succeeded: () => {
        takeBack();
        this.pairs.reset(pair);
      },
      abandoned: takeBack,
    };
  }

  /**
   * A sign-in that names no email until it is checked (a single sign-on callback): counted
   * against its address, in the same limiter as failed passwords, and taken back when it
   * succeeds.
   */
  beginFromAddress(address: string | null): LoginVerdict {
    if (!address) return { allowed: true, succeeded: () => {}, abandoned: () => {} };
    const verdict = this.addresses.check(address);
    if (refused(verdict)) return verdict;
    const takeBack = this.addresses.recordFailure(address);
    return { allowed: true, succeeded: takeBack, abandoned: takeBack };
  }
}
