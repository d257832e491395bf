import { performance } from "node:perf_hooks";
import {
  forwardableHeaders,
  forwardTarget,
  retryDelay,
  signStandardWebhook,
  type DeliveryMetrics,
  type HeaderList,
  type Logger,
} from "@rehook/core";
import {
  BODY_BYTES_PER_READ,
  adoptExpiredEventLeases,
  claimDueDeliveries,
  completeDeliveries,
  deliveryKey,
  handBackLeases,
  leaseOf,
  Poller,
  type ClaimedDelivery,
  type CompletedDelivery,
  type DeliveryLease,
  type DeliveryOutcome,
  type Pool,
} from "@rehook/db";
import { FairScheduler, type Scheduled } from "./fair-scheduler.js";
import { HeldRetries } from "./held-retries.js";
import type { DeliveryPool } from "./pool.js";
import { StartSlots } from "./start-slots.js";
import type { DeliveryResult, DeliveryTask } from "./types.js";

export interface DispatcherOptions {
  db: Pool;
  deliveries: DeliveryPool;
  timeoutMs: number;
  allowPrivate: boolean;
  logger: Logger;
  /** Kept bytes of each response body. */
  maxResponseBytes?: number;
  /** How often pending events nobody holds are looked for (missed fast paths, expired leases). */
  recoveryIntervalMs?: number;
  /** Body bytes of recovered events held at once, claimed and not yet answered (MAX_RECOVERY_BYTES_IN_FLIGHT). */
  maxRecoveryBytes?: number;
  /** Most deliveries this instance runs at once, and most leased events it holds (running or waiting). */
  maxInFlight?: number;
  /** Most deliveries to one destination at once (MAX_IN_FLIGHT_PER_DESTINATION): a slow destination cannot take the others' room. */
  maxInFlightPerDestination?: number;
  /** Jitters retry delays ([0, 1); Math.random unless a test fixes it). */
  retryRandom?: () => number;
  /** Longest retry wait kept in memory (MAX_HELD_RETRY_WAIT_MS); 0 sends every retry through the database. */
  maxHeldRetryWaitMs?: number;
  /** Counts every attempt whose result was stored, by outcome, with its latency. */
  metrics?: DeliveryMetrics;
}

const SIGNATURE_HEADERS = new Set(["webhook-id", "webhook-timestamp", "webhook-signature"]);

/** A stored request as it goes out again: to its destination, or replayed elsewhere. */
export interface StoredRequest {
  id: string;
  method: string;
  headers: HeaderList;
  body: Uint8Array;
  signRequests: boolean;
  secret: string;
  /** The endpoint's keep_proxy_headers: X-Forwarded-*, Forwarded and X-Real-IP go along. */
  keepProxyHeaders: boolean;
}

export type SendOptions = Pick<DispatcherOptions, "timeoutMs" | "allowPrivate" | "maxResponseBytes">;

/**
 * What goes on the wire for a stored request: its method, body bytes and headers minus the
 * hop-by-hop set (and the proxy headers unless the endpoint keeps them), signed afresh when
 * the endpoint signs (new timestamp, the event id as webhook-id, so receivers can drop
 * duplicates; a sender's own webhook-* headers would contradict ours and are replaced).
 */
export function outboundTask(request: StoredRequest, url: string, options: SendOptions, startBy?: number): DeliveryTask {
  let headers: HeaderList = forwardableHeaders(request.headers, { keepProxyHeaders: request.keepProxyHeaders });
  if (request.signRequests) {
    const signature = signStandardWebhook({ id: request.id, timestampSeconds: Date.now() / 1000, body: request.body, secret: request.secret });
    headers = [...headers.filter(([name]) => !SIGNATURE_HEADERS.has(name.toLowerCase())), ...Object.entries(signature)];
  }
  return {
    url,
    method: request.method,
    headers,
    body: request.body,
    timeoutMs: options.timeoutMs,
    maxResponseBytes: options.maxResponseBytes ?? 256 * 1024,
    allowPrivate: options.allowPrivate,
    startBy,
  };
}

/**
 * What goes on the wire for one claimed delivery: to its destination, with path forwarding. A
 * sub-path that could leave the destination's path (stored before capture refused it) makes
 * a task the worker fails at once, with the reason, so the attempt is recorded like any other.
 */
export function deliveryTask(event: ClaimedDelivery, options: SendOptions, startBy?: number): DeliveryTask {
  const target = forwardTarget(event.destinationUrl, event.path, event.query);
  if (target.ok) return outboundTask(event, target.url, options, startBy);
  return { ...outboundTask(event, event.destinationUrl, options, startBy), refused: target.reason };
}

/**
 * A worker's result as the attempt to store: after a failure, whether and when the event's
 * policy wants another attempt (Retry-After on 429 and 503 honoured). `random` jitters the wait.
 */
export function outcome(
  event: DeliveryLease & Pick<ClaimedDelivery, "retryPolicy" | "otherDeliveries">,
  result: DeliveryResult,
  random: () => number = Math.random,
): DeliveryOutcome {
  const retryAfter = result.headers?.find(([name]) => name.toLowerCase() === "retry-after")?.[1] ?? null;
  return {
    ...leaseOf(event),
    otherDeliveries: event.otherDeliveries,
    status: result.ok ? "delivered" : "failed",
    retryInMs: result.ok ? null : retryDelay(event.retryPolicy, { attempt: event.attempt, responseStatus: result.status, retryAfter }, random, Date.now()),
    startedAt: result.startedAt,
    latencyMs: result.latencyMs,
    responseStatus: result.status,
    responseHeaders: result.headers,
    responseBody: result.body ? Buffer.from(result.body.buffer, result.body.byteOffset, result.body.byteLength) : null,
    responseTruncated: result.truncated,
    error: result.error,
  };
}

/** The soonest a claim follows one that took a rate-limited destination's deliveries. */
const PACED_CLAIM_MS = 50;
/** Most events one recovery claim takes. */
const CLAIM_ROWS = 500;
/** Most expired fast-path leases on events one recovery turns into claimable deliveries. */
const ADOPT_ROWS = 1_000;
/** How often at most recovery looks for expired leases on events (a lease runs leaseMs: a second later is nothing). */
const ADOPT_INTERVAL_MS = 1_000;
/** Body bytes of recovered events a dispatcher holds at once by default (claimed, not yet answered). */
export const MAX_RECOVERY_BYTES_IN_FLIGHT = BODY_BYTES_PER_READ;
/** Deliveries an instance runs at once by default, and events it holds (running or waiting). */
export const DEFAULT_MAX_IN_FLIGHT = 2_000;
/** Deliveries to one destination at once by default (MAX_IN_FLIGHT_PER_DESTINATION). */
export const DEFAULT_MAX_IN_FLIGHT_PER_DESTINATION = 200;

/** A leased delivery held in memory until it is sent. */
interface Held {
  event: ClaimedDelivery;
  /** Epoch ms after which sending could outlive the lease (it counts from event.takenAt): the event is then handed back unsent. */
  startBy: number;
  /** Its body bytes when it came from a recovery claim (counted against maxRecoveryBytes), else 0. */
  recoveredBytes: number;
}

/**
 * Moves pending events to delivered or failed. The main thread claims work in PostgreSQL
 * (with a lease), worker threads send it, and the results come back here to be stored in
 * batches. Nothing is marked done unless a worker returned a result for it: a crashed
 * worker or process leaves the lease to expire, and the event is claimed again.
 *
 * Fairness: every leased delivery (fast path or claim) goes through a FairScheduler, so one
 * destination has at most maxInFlightPerDestination sends running and free slots go round
 * robin between destinations; the rest wait in memory, bounded, or go back to the database.
 *
 * The breaker: a failed attempt to a destination with a circuit breaker makes it half-open
 * (core's breaker.ts): from then on it gets one send at a time, a probe, which only a claim
 * hands out. What this instance leased for it before that failure was stored (from the fast
 * path, a claim or a capture statement that ran meanwhile) is not started any more: from the
 * moment the failed result arrives here until its completion is stored, and for every lease
 * taken before that, it goes back to the database unsent. Sends already running go on: those
 * are the ones "in flight" when the failure came.
 */
export class DeliveryDispatcher {
  /** How long a claim holds an event: see the writer's fast path and claimDueEvents. */
  readonly leaseMs: number;
  private readonly maxInFlight: number;
  private readonly maxInFlightPerDestination: number;
  /** Most events waiting in memory; past it the destination furthest behind gives its newest back. */
  private readonly maxWaiting: number;
  private readonly scheduler: FairScheduler<Held>;
  /** Failed events waiting in memory for a retry due soon. */
  private readonly retries: HeldRetries;
  private pumpScheduled = false;
  private handBacks: DeliveryLease[] = [];
  private handingBack: Promise<void> | undefined;
  private completions: DeliveryOutcome[] = [];
  /** Completions waiting to be stored that are failed attempts to a destination with a breaker. */
  private readonly failedToBreakers = new Set<DeliveryOutcome>();
  private completing: Promise<void> | undefined;
  /** The recovery claim's loop (the job runner's poller: the deliveries table is forwarding's queue). */
  private readonly recovery: Poller;
  private recoveryBytes = 0;
  /** performance.now() of the last look for expired leases on events. */
  private lastAdoptAt = -Infinity;
  /** The last claim was cut by bytes: claim again as soon as recovered bytes are let go. */
  private recoveryWaitsForBytes = false;
  /** Destinations a claim gave a whole limit's worth (likely more due): claim again once their queue empties. */
  private readonly cutDestinations = new Set<string>();
  /** Claimed deliveries of rate-limited destinations waiting for their booked slot. */
  private readonly slots = new StartSlots<Held>((due) => due.forEach((held) => this.queue(held)));
  private readonly maxRecoveryBytes: number;
  private stopped = false;
  private readonly running = new Set<Promise<unknown>>();
  /**
   * Destinations (with a breaker) whose failed attempt this instance saw: leases of theirs taken
   * before this moment (epoch ms) are stale, since the claim or capture that took them did not see
   * the failure. Infinity while the failure is not stored yet; entries older than a lease are dropped.
   */
  private readonly halfOpenSince = new Map<string, number>();
  /** Failed attempts per destination (with a breaker) not stored yet. */
  private readonly unstoredFailures = new Map<string, number>();

  constructor(private readonly options: DispatcherOptions) {
    // Well past the forward timeout (65 s for the default 30 s), so a slow but live attempt
    // is never taken over, and short enough that a crashed instance's work resumes soon.
    this.leaseMs = options.timeoutMs * 2 + 5_000;
    this.maxInFlight = options.maxInFlight ?? DEFAULT_MAX_IN_FLIGHT;
    this.maxInFlightPerDestination = options.maxInFlightPerDestination ?? DEFAULT_MAX_IN_FLIGHT_PER_DESTINATION;
    // Half the room at most waits, so a few stuck destinations' backlogs cannot stop the fast
    // path (hasRoom) for all the others.
    this.maxWaiting = Math.max(1, Math.floor(this.maxInFlight / 2));
    this.maxRecoveryBytes = options.maxRecoveryBytes ?? MAX_RECOVERY_BYTES_IN_FLIGHT;
    this.scheduler = new FairScheduler({ perKeyLimit: this.maxInFlightPerDestination, totalLimit: this.maxInFlight });
    this.recovery = new Poller(() => this.recover(), options.recoveryIntervalMs ?? 1_000);
    this.retries = new HeldRetries({
      db: options.db,
      logger: options.logger,
      leaseMs: this.leaseMs,
      maxWaitMs: options.maxHeldRetryWaitMs,
      onDue: (events) => events.forEach((event) => (this.stopped ? this.letGo({ event, startBy: 0, recoveredBytes: 0 }) : this.hold(event, 0))),
    });
  }

  start(): void {
    this.recovery.start();
  }

  /** Whether the fast path may lease more events to this instance (asked per capture batch). */
  hasRoom(): boolean {
    return !this.stopped && this.held() < this.maxInFlight;
  }

  /** Sends running to this destination and deliveries waiting for it (tests, diagnostics). */
  load(destinationId: string): { running: number; waiting: number } {
    return { running: this.scheduler.runningFor(destinationId), waiting: this.scheduler.waitingFor(destinationId) };
  }

  /** Deliveries only a claim takes (paced and ordered destinations) were stored or freed: claim now rather than at the next interval. */
  claimSoon(): void {
    if (!this.stopped) this.recovery.wake();
  }

  /** Failed events waiting in memory for their retry (tests, diagnostics). */
  get heldRetries(): number {
    return this.retries.size;
  }

  /**
   * The fast path: events committed already leased to this instance, sent from memory.
   * Those offered in one turn of the event loop go to a worker together.
   */
  deliverLeased(event: ClaimedDelivery): void {
    // Stopping: handed back unsent (stop() flushes hand-backs last), so a running instance claims it at once.
    if (this.stopped) return this.letGo({ event, startBy: 0, recoveredBytes: 0 });
    this.hold(event, 0);
  }

  /** Stops claiming, hands back what waits, waits for the deliveries in flight and stores their results. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.recovery.stop();
    this.slots.drain().forEach((held) => this.letGo(held));
    this.scheduler.drain().forEach((held) => this.letGo(held));
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
    // A flush under way holds results (and retries to keep) that the one below would not see.
    await this.completing;
    await this.flushCompletions();
    await this.retries.stop();
    await this.flushHandBacks();
  }

  private track(work: Promise<unknown>): void {
    this.running.add(work);
    void work.finally(() => this.running.delete(work));
  }

  /**
   * Queues a leased delivery for its destination. Its send deadline counts from the lease, not from
   * when it leaves the queue: a send starting later could outlive the lease and race another
   * instance's claim.
   */
  private hold(event: ClaimedDelivery, recoveredBytes: number): void {
    const held = { event, startBy: event.takenAt + this.leaseMs - this.options.timeoutMs - 5_000, recoveredBytes };
    if (event.startInMs) this.slots.add(held, event.takenAt + event.startInMs);
    else this.queue(held);
  }

  private queue(held: Held): void {
    if (this.predatesFailure(held.event)) return this.letGo(held);
    this.scheduler.add(held.event.destinationId, held, held.startBy);
    this.schedulePump();
  }

  /** A lease of a now half-open destination taken before its failure was stored here: not to be sent (probes excepted). */
  private predatesFailure(event: ClaimedDelivery): boolean {
    if (!event.breaker || event.probe) return false;
    const since = this.halfOpenSince.get(event.destinationId);
    return since !== undefined && event.takenAt < since;
  }

  /** A failed attempt to a destination with a breaker came back: what waits for it here goes back to the database. */
  private noteFailure(destinationId: string): void {
    this.unstoredFailures.set(destinationId, (this.unstoredFailures.get(destinationId) ?? 0) + 1);
    this.halfOpenSince.set(destinationId, Infinity);
    this.scheduler.dropWaiting(destinationId).forEach((held) => this.letGo(held));
  }

  /** A batch holding such failures was stored (or could not be): leases taken from now on saw it. */
  private noteFailuresStored(batch: DeliveryOutcome[]): void {
    const now = Date.now();
    for (const attempt of batch) {
      if (!this.failedToBreakers.delete(attempt)) continue;
      const left = (this.unstoredFailures.get(attempt.destinationId) ?? 1) - 1;
      if (left > 0) this.unstoredFailures.set(attempt.destinationId, left);
      else {
        this.unstoredFailures.delete(attempt.destinationId);
        this.halfOpenSince.set(attempt.destinationId, now);
      }
    }
    // A lease is never older than leaseMs: older marks can judge nothing any more.
    for (const [destinationId, since] of this.halfOpenSince) if (since < now - this.leaseMs) this.halfOpenSince.delete(destinationId);
  }

  /** Deliveries this instance holds: sending, queued, and waiting for their slot. */
  private held(): number {
    return this.scheduler.running + this.scheduler.waiting + this.slots.size;
  }

  /** Starts what may start, once per turn of the event loop (so a turn's events share a batch). */
  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    if (this.stopped) return;
    const { ready, expired } = this.scheduler.next();
    expired.forEach((held) => this.letGo(held));
    if (ready.length > 0) this.send(ready);
    while (this.scheduler.waiting > this.maxWaiting) this.letGo(this.scheduler.shed()!);
    // A backlog in the database for a destination whose queue ran dry: fetch it now, not at the next interval.
    for (const destinationId of this.cutDestinations) {
      if (this.scheduler.waitingFor(destinationId) > 0) continue;
      this.cutDestinations.delete(destinationId);
      this.recovery.wake();
    }
  }

  /** An event leaves without being sent: its lease goes back to the database for any claim. */
  private letGo(held: Held): void {
    this.releaseRecovered(held);
    this.handBacks.push(leaseOf(held.event));
    this.handingBack ??= new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.flushHandBacks());
  }

  private async flushHandBacks(): Promise<void> {
    while (this.handBacks.length > 0) {
      const claims = this.handBacks.splice(0, 1_000);
      try {
        await handBackLeases(this.options.db, claims);
      } catch (error) {
        // Still leased: the leases expire and the events are claimed then.
        this.options.logger.warn("could not hand back leases", { count: claims.length, error: String(error) });
      }
    }
    this.handingBack = undefined;
  }

  private releaseRecovered(held: Held): void {
    if (held.recoveredBytes === 0) return;
    this.recoveryBytes -= held.recoveredBytes;
    held.recoveredBytes = 0;
    // Cut by bytes: the next claim waited for this room, not for the interval.
    if (this.recoveryWaitsForBytes) {
      this.recoveryWaitsForBytes = false;
      this.recovery.wake();
    }
  }

  /**
   * Claims what is due, within the room left and the recovery's byte budget (recovered
   * bodies, up to 10 MiB each, stay in memory until answered), taking at most one destination's
   * limit per destination and none for destinations that already have that much waiting here (an
   * destination merely at its limit still gets a queue, so a slow but live one keeps its slots
   * busy between claims). Answers whether more may be due at once (it claimed something).
   */
  private async recover(): Promise<boolean> {
    await this.adoptExpiredLeases();
    const room = this.maxInFlight - this.held();
    const budget = this.maxRecoveryBytes - this.recoveryBytes;
    if (room <= 0) return false;
    if (budget <= 0) {
      this.recoveryWaitsForBytes = true;
      return false;
    }
    let claimed: ClaimedDelivery[];
    try {
      claimed = await claimDueDeliveries(this.options.db, Math.min(room, CLAIM_ROWS), this.leaseMs, budget, {
        perDestination: this.maxInFlightPerDestination,
        skipDestinations: this.scheduler.fullKeys(),
      });
    } catch (error) {
      this.options.logger.warn("could not claim deliveries", { error: String(error) });
      return false;
    }
    let bytes = 0;
    for (const event of claimed) {
      const size = event.body.byteLength;
      bytes += size;
      this.recoveryBytes += size;
      if (this.stopped) this.letGo({ event, startBy: 0, recoveredBytes: size });
      else this.hold(event, size);
    }
    if (bytes >= budget) this.recoveryWaitsForBytes = true;
    const unpaced = claimed.filter((delivery) => delivery.ratePerSecond === null);
    this.noteCutDestinations(unpaced);
    this.claimBeforeSlotsRunOut(claimed.filter((delivery) => delivery.ratePerSecond !== null));
    return unpaced.length > 0;
  }

  /** Fast-path leases on events whose holder never answered become claimable deliveries (see adoptExpiredEventLeases). */
  private async adoptExpiredLeases(): Promise<void> {
    const now = performance.now();
    if (now - this.lastAdoptAt < ADOPT_INTERVAL_MS) return;
    this.lastAdoptAt = now;
    try {
      const adopted = await adoptExpiredEventLeases(this.options.db, ADOPT_ROWS);
      if (adopted > 0) this.options.logger.info("took over expired fast-path leases", { count: adopted });
    } catch (error) {
      this.options.logger.warn("could not take over expired fast-path leases", { error: String(error) });
    }
  }

  /**
   * Paced deliveries came with slots booked up to a second ahead: claim again when the first
   * destination's booked run is half spent (50 ms at the soonest), so its next slots are booked
   * before these run out, rather than at once (none would be free) or after the full interval.
   */
  private claimBeforeSlotsRunOut(paced: ClaimedDelivery[]): void {
    if (paced.length === 0) return;
    const lastSlot = new Map<string, number>();
    for (const { destinationId, startInMs = 0 } of paced) lastSlot.set(destinationId, Math.max(lastSlot.get(destinationId) ?? 0, startInMs));
    this.recovery.wakeAfter(Math.max(PACED_CLAIM_MS, Math.floor(Math.min(...lastSlot.values()) / 2)));
  }

  private noteCutDestinations(claimed: ClaimedDelivery[]): void {
    const perDestination = new Map<string, number>();
    for (const { destinationId } of claimed) perDestination.set(destinationId, (perDestination.get(destinationId) ?? 0) + 1);
    for (const [destinationId, count] of perDestination) if (count >= this.maxInFlightPerDestination) this.cutDestinations.add(destinationId);
  }

  /** Sends started events through the worker pool; each frees its slot as soon as it is answered. */
  private send(ready: Scheduled<Held>[]): void {
    const tasks = ready.map(({ item }) => deliveryTask(item.event, this.options, item.startBy));
    const answered = new Array<boolean>(ready.length).fill(false);
    const finish = (index: number) => {
      answered[index] = true;
      const { key, item } = ready[index]!;
      this.scheduler.done(key);
      this.releaseRecovered(item);
      this.schedulePump();
    };
    const work = this.options.deliveries
      .runBatch(tasks, (index, result) => {
        const { event } = ready[index]!.item;
        // Before its slot frees: nothing more may start for a destination that just failed.
        if (result && !result.ok && event.breaker) this.noteFailure(event.destinationId);
        finish(index);
        // Not sent (its startBy had passed in the worker): nothing went out, the lease goes back.
        if (!result) return this.letGo(ready[index]!.item);
        const attempt = outcome(event, result, this.options.retryRandom);
        if (attempt.status === "failed" && event.breaker) this.failedToBreakers.add(attempt);
        // A retry due soon waits here, its lease kept: no claim has to read it back.
        if (attempt.retryInMs !== null && this.retries.reserve(event, attempt.retryInMs)) attempt.holdLeaseMs = this.leaseMs;
        this.completions.push(attempt);
        this.scheduleCompletion();
      })
      .catch((error: unknown) => {
        // The worker failed, not the destinations: the unanswered leases expire and are claimed again.
        const unanswered = answered.filter((done) => !done).length;
        this.options.logger.error("delivery worker failed", { events: unanswered, error: String(error) });
      })
      .finally(() => {
        answered.forEach((done, index) => done || finish(index));
      });
    this.track(work);
  }

  /** A breaker that just tripped: what waits here for that destination goes back to the database unsent (sends under way finish). */
  private stopSendingToPaused(completed: CompletedDelivery[]): void {
    const paused = new Set(completed.filter((delivery) => delivery.pausedNow).map((delivery) => delivery.destinationId));
    for (const destinationId of paused) this.scheduler.dropWaiting(destinationId).forEach((held) => this.letGo(held));
  }

  /**
   * The metrics count the attempts whose results were stored: those the statement answered
   * for (a late result of an expired lease changes nothing and is not counted).
   */
  private countAttempts(batch: DeliveryOutcome[], completed: CompletedDelivery[]): void {
    const metrics = this.options.metrics;
    if (!metrics) return;
    const stored = completed.length === batch.length ? undefined : new Set(completed.map(deliveryKey));
    for (const attempt of batch) {
      if (stored && !stored.has(deliveryKey(attempt))) continue;
      metrics.deliveryAttempt(attempt.status, attempt.latencyMs / 1000);
    }
  }

  private scheduleCompletion(): void {
    if (this.completing) return;
    this.completing = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.flushCompletions());
  }

  private async flushCompletions(): Promise<void> {
    while (this.completions.length > 0) {
      const batch = this.completions.splice(0, 500);
      try {
        const completed = await completeDeliveries(this.options.db, batch);
        this.noteFailuresStored(batch);
        this.retries.stored(batch, completed);
        this.countAttempts(batch, completed);
        this.stopSendingToPaused(completed);
        // An ordered destination's next delivery, or a half-open one's next probe, waited for this one.
        if (batch.some((attempt) => attempt.probe) || completed.some((delivery) => delivery.ordered)) this.claimSoon();
      } catch (error) {
        this.noteFailuresStored(batch);
        this.retries.notStored(batch);
        // Not stored: the leases expire and the events are delivered again (at least once).
        this.options.logger.error("could not store delivery results", { count: batch.length, error: String(error) });
      }
    }
    this.completing = undefined;
  }
}
