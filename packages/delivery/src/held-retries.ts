import type { Logger } from "@rehook/core";
import { deliveryKey, handBackLeases, leaseOf, reclaimHeldRetries, type ClaimedDelivery, type CompletedDelivery, type DeliveryLease, type DeliveryOutcome, type Pool } from "@rehook/db";

/** Longest retry wait kept in memory (MAX_HELD_RETRY_WAIT_MS); longer waits go to the database. */
export const MAX_HELD_RETRY_WAIT_MS = 60_000;
/** Body bytes of failed events kept in memory for their retries at once. */
export const MAX_HELD_RETRY_BYTES = 32 * 1024 * 1024;
/** Failed events kept in memory for their retries at once. */
export const MAX_HELD_RETRIES = 10_000;
/** Retries come due on ticks this far apart, so those due close together are re-claimed in one statement. */
const TICK_MS = 50;

export interface HeldRetriesOptions {
  db: Pool;
  logger: Logger;
  /** The lease a re-claim takes, as a claim would. */
  leaseMs: number;
  maxWaitMs?: number;
  maxBytes?: number;
  maxCount?: number;
  /** Retries due now, re-claimed (attempt counted, lease taken at their takenAt): to be sent. */
  onDue: (events: ClaimedDelivery[]) => void;
}

interface Kept {
  event: ClaimedDelivery;
  retryInMs: number;
  /** The tick it waits for, once its retry is scheduled in the database. */
  tick?: number;
}

/**
 * Failed events kept in memory until their next attempt, when that comes soon. Their
 * completion keeps them leased to this instance (DeliveryOutcome.holdLeaseMs), and when due
 * they are re-claimed in one statement that reads no body back; the recovery claim would
 * read each body again, and with retries on that doubled the database work of a failing
 * destination. Bounded by count, bytes and wait. A crash loses nothing: the leases expire
 * and the events are claimed from the database like any other due retry.
 */
export class HeldRetries {
  private readonly kept = new Map<string, Kept>();
  /** Ticks (epoch ms) with the kept events due at each, and each tick's timer. */
  private readonly ticks = new Map<number, { ids: Set<string>; timer: NodeJS.Timeout }>();
  private bytes = 0;
  private due: DeliveryLease[] = [];
  private reclaiming: Promise<void> | undefined;
  /** Hand-backs under way: stop() waits for them, so none is cut off by the pool closing. */
  private readonly givingBack = new Set<Promise<void>>();
  private stopped = false;
  private readonly maxWaitMs: number;
  private readonly maxBytes: number;
  private readonly maxCount: number;

  constructor(private readonly options: HeldRetriesOptions) {
    this.maxWaitMs = options.maxWaitMs ?? MAX_HELD_RETRY_WAIT_MS;
    this.maxBytes = options.maxBytes ?? MAX_HELD_RETRY_BYTES;
    this.maxCount = options.maxCount ?? MAX_HELD_RETRIES;
  }

  /** Failed events kept for a retry (tests, diagnostics). */
  get size(): number {
    return this.kept.size;
  }

  /**
   * Whether to keep this failed delivery for its retry in `retryInMs`; when yes its room is
   * taken until it is let go. A paced destination's retries go through the database, where
   * its rate limit is counted, and so do those of a destination with a breaker: its failure
   * made it half-open, and its next sends are probes, one at a time, that only a claim gives.
   */
  reserve(event: ClaimedDelivery, retryInMs: number): boolean {
    const size = event.body.byteLength;
    if (this.stopped || event.ratePerSecond !== null || event.breaker || retryInMs > this.maxWaitMs || this.kept.size >= this.maxCount || this.bytes + size > this.maxBytes)
      return false;
    const key = deliveryKey(event);
    if (this.kept.has(key)) return false;
    // The failure's result writes the delivery's row (if the lease was on the event): the retry is claimed on that row.
    this.kept.set(key, { event: { ...event, heldOn: "delivery" }, retryInMs });
    this.bytes += size;
    return true;
  }

  /**
   * A batch of outcomes was stored: a kept event now pending with its retry scheduled waits
   * for it here; one that is not (a stale result, delivered, final) is let go, and one whose
   * endpoint's breaker just tripped goes back to the database to wait for the resume.
   */
  stored(batch: DeliveryOutcome[], completed: CompletedDelivery[]): void {
    const byKey = new Map(completed.map((delivery) => [deliveryKey(delivery), delivery]));
    const handBack: DeliveryLease[] = [];
    for (const outcome of batch) {
      const key = deliveryKey(outcome);
      const kept = this.kept.get(key);
      if (!kept || kept.tick !== undefined || !outcome.holdLeaseMs) continue;
      const done = byKey.get(key);
      if (done?.status !== "pending") {
        this.forget(key);
      } else if (done.pausedNow || this.stopped) {
        this.forget(key);
        handBack.push({ ...leaseOf(outcome), heldOn: "delivery" });
      } else {
        // From now, not from the attempt: the database's next_attempt_at is never ahead of this.
        this.wait(key, kept, Date.now() + kept.retryInMs);
      }
    }
    const paused = new Set(completed.filter((delivery) => delivery.pausedNow).map((delivery) => delivery.destinationId));
    for (const destinationId of paused) handBack.push(...this.takeDestination(destinationId));
    this.track(this.giveBack(handBack));
  }

  /** The batch was not stored: its kept deliveries are let go (their leases expire and they are claimed again). */
  notStored(batch: DeliveryOutcome[]): void {
    for (const outcome of batch) {
      const key = deliveryKey(outcome);
      if (outcome.holdLeaseMs && this.kept.get(key)?.tick === undefined) this.forget(key);
    }
  }

  /** Stops keeping: what waits goes back to the database, its attempts counted, so a running instance takes it when due. */
  async stop(): Promise<void> {
    this.stopped = true;
    const waiting = [...this.kept.keys()].filter((key) => this.kept.get(key)!.tick !== undefined);
    const claims = waiting.map((key) => leaseClaimOf(this.kept.get(key)!.event));
    waiting.forEach((key) => this.forget(key));
    await this.reclaiming;
    await this.giveBack(claims);
    await Promise.all([...this.givingBack]);
  }

  private track(work: Promise<void>): void {
    this.givingBack.add(work);
    void work.finally(() => this.givingBack.delete(work));
  }

  private takeDestination(destinationId: string): DeliveryLease[] {
    const claims: DeliveryLease[] = [];
    for (const [key, kept] of this.kept) {
      if (kept.event.destinationId !== destinationId || kept.tick === undefined) continue;
      claims.push(leaseClaimOf(kept.event));
      this.forget(key);
    }
    return claims;
  }

  /** Waits for the first tick at or after `dueAt`. */
  private wait(id: string, kept: Kept, dueAt: number): void {
    const tick = Math.ceil(dueAt / TICK_MS) * TICK_MS;
    kept.tick = tick;
    const existing = this.ticks.get(tick);
    if (existing) return void existing.ids.add(id);
    const timer = setTimeout(() => this.dueNow(tick), tick - Date.now());
    this.ticks.set(tick, { ids: new Set([id]), timer });
  }

  private forget(id: string): void {
    const kept = this.kept.get(id);
    if (!kept) return;
    if (kept.tick !== undefined) {
      const tick = this.ticks.get(kept.tick);
      tick?.ids.delete(id);
      if (tick?.ids.size === 0) {
        clearTimeout(tick.timer);
        this.ticks.delete(kept.tick);
      }
    }
    this.kept.delete(id);
    this.bytes -= kept.event.body.byteLength;
  }

  private async giveBack(claims: DeliveryLease[]): Promise<void> {
    try {
      await handBackLeases(this.options.db, claims, { sent: true });
    } catch (error) {
      // Still leased: the leases expire and the retries are claimed then.
      this.options.logger.warn("could not hand back held retries", { count: claims.length, error: String(error) });
    }
  }

  private dueNow(tick: number): void {
    const ids = this.ticks.get(tick)?.ids ?? new Set<string>();
    this.ticks.delete(tick);
    if (this.stopped) return;
    for (const key of ids) {
      const kept = this.kept.get(key)!;
      kept.tick = undefined;
      this.due.push(leaseClaimOf(kept.event));
    }
    // Retries due in one turn of the event loop are re-claimed together.
    this.reclaiming ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.reclaim());
  }

  private async reclaim(): Promise<void> {
    while (this.due.length > 0) {
      const claims = this.due.splice(0, 1_000);
      const events = claims.map((claim) => this.kept.get(deliveryKey(claim))?.event).filter((event) => event !== undefined);
      claims.forEach((claim) => this.forget(deliveryKey(claim)));
      const leasedAt = Date.now();
      try {
        const reclaimed = new Map((await reclaimHeldRetries(this.options.db, claims, this.options.leaseMs)).map((row) => [deliveryKey(row), row]));
        const ready = events.flatMap((event) => {
          const row = reclaimed.get(deliveryKey(event));
          return row ? [{ ...event, attempt: row.attempt, retryPolicy: row.retryPolicy, takenAt: leasedAt }] : [];
        });
        if (ready.length > 0) this.options.onDue(ready);
      } catch (error) {
        // Still leased to this instance: the leases expire and the retries are claimed from the database.
        this.options.logger.warn("could not re-claim held retries", { count: claims.length, error: String(error) });
      }
    }
    this.reclaiming = undefined;
  }
}

/** A kept delivery's lease, as the database knows it (on its row: its failure wrote the row). */
function leaseClaimOf(event: ClaimedDelivery): DeliveryLease {
  return { ...leaseOf(event), heldOn: "delivery" };
}
