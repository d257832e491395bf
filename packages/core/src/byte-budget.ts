/**
 * A count of bytes shared by many holders, never past `limit`: what request bodies may hold in
 * memory at once in one process. Holders take a Share, grow it as bytes arrive, and give it
 * back once (further releases are no-ops, so every exit path may release).
 */
export class ByteBudget {
  private taken = 0;

  constructor(private max: number) {
    if (!Number.isSafeInteger(max) || max <= 0) throw new RangeError(`a byte budget needs a positive limit, not ${max}`);
  }

  get limit(): number {
    return this.max;
  }

  /** Bytes held now. */
  get used(): number {
    return this.taken;
  }

  /** A new, empty share. */
  share(): BudgetShare {
    return new BudgetShare(this);
  }

  /** Changes the limit (configuration); shares already held keep what they took. */
  setLimit(max: number): void {
    if (!Number.isSafeInteger(max) || max <= 0) throw new RangeError(`a byte budget needs a positive limit, not ${max}`);
    this.max = max;
  }

  /** @internal Takes `bytes` if they fit under the limit. */
  take(bytes: number): boolean {
    if (this.taken + bytes > this.max) return false;
    this.taken += bytes;
    return true;
  }

  /** @internal */
  give(bytes: number): void {
    this.taken -= bytes;
  }
}

/** One holder's part of a ByteBudget. */
export class BudgetShare {
  private held = 0;
  private released = false;

  constructor(private readonly budget: ByteBudget) {}

  /** Takes `bytes` more; false (nothing taken) when the budget has no room for them. */
  grow(bytes: number): boolean {
    if (this.released || !this.budget.take(bytes)) return false;
    this.held += bytes;
    return true;
  }

  get bytes(): number {
    return this.held;
  }

  /** Gives everything back (once). */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.budget.give(this.held);
    this.held = 0;
  }
}
