import {
  forwardableHeaders,
  forwardTarget,
  signStandardWebhook,
  type HeaderList,
  type Logger,
} from "@rehook/core";
import {
  claimDueEvents,
  completeEvents,
  type ClaimedEvent,
  type CompletedEvent,
  type DeliveryOutcome,
  type Pool,
} from "@rehook/db";
import type { DeliveryPool } from "./pool.js";
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
  /** Most deliveries this instance runs at once. */
  maxInFlight?: number;
  /** Told about every event that reached delivered or failed (live feed, notifications). */
  onCompleted?: (events: CompletedEvent[]) => void;
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
}

export type SendOptions = Pick<DispatcherOptions, "timeoutMs" | "allowPrivate" | "maxResponseBytes">;

/**
 * What goes on the wire for a stored request: its method, body bytes and headers minus the
 * hop-by-hop set, signed afresh when the endpoint signs (new timestamp, the event id as
 * webhook-id, so receivers can drop duplicates; a sender's own webhook-* headers would
 * contradict ours and are replaced).
 */
export function outboundTask(request: StoredRequest, url: string, options: SendOptions, startBy?: number): DeliveryTask {
  let headers: HeaderList = forwardableHeaders(request.headers);
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

/** What goes on the wire for one claimed event: to its destination, with path forwarding. */
export function deliveryTask(event: ClaimedEvent, options: SendOptions, startBy?: number): DeliveryTask {
  return outboundTask(event, forwardTarget(event.destinationUrl, event.path, event.query), options, startBy);
}

function outcome(id: string, result: DeliveryResult): DeliveryOutcome {
  return {
    id,
    status: result.ok ? "delivered" : "failed",
    startedAt: result.startedAt,
    latencyMs: result.latencyMs,
    responseStatus: result.status,
    responseHeaders: result.headers,
    responseBody: result.body ? Buffer.from(result.body.buffer, result.body.byteOffset, result.body.byteLength) : null,
    responseTruncated: result.truncated,
    error: result.error,
  };
}

/**
 * Moves pending events to delivered or failed. The main thread claims work in PostgreSQL
 * (with a lease), worker threads send it, and the results come back here to be stored in
 * batches. Nothing is marked done unless a worker returned a result for it: a crashed
 * worker or process leaves the lease to expire, and the event is claimed again.
 */
export class DeliveryDispatcher {
  /** How long a claim holds an event: see the writer's fast path and claimDueEvents. */
  readonly leaseMs: number;
  private readonly maxInFlight: number;
  private inFlight = 0;
  private offered: ClaimedEvent[] = [];
  private offerScheduled = false;
  private completions: DeliveryOutcome[] = [];
  private completing: Promise<void> | undefined;
  private recoveryTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private readonly running = new Set<Promise<unknown>>();

  constructor(private readonly options: DispatcherOptions) {
    // Well past the forward timeout (65 s for the default 30 s), so a slow but live attempt
    // is never taken over, and short enough that a crashed instance's work resumes soon.
    this.leaseMs = options.timeoutMs * 2 + 5_000;
    this.maxInFlight = options.maxInFlight ?? 2_000;
  }

  start(): void {
    this.scheduleRecovery(0);
  }

  /** Whether the fast path may lease more events to this instance (asked per capture batch). */
  hasRoom(): boolean {
    return !this.stopped && this.inFlight + this.offered.length < this.maxInFlight;
  }

  /**
   * The fast path: events committed already leased to this instance, sent from memory.
   * Those offered in one turn of the event loop go to a worker together.
   */
  deliverLeased(event: ClaimedEvent): void {
    // Stopping: the lease expires and the recovery loop of a running instance takes it.
    if (this.stopped) return;
    this.offered.push(event);
    if (this.offerScheduled) return;
    this.offerScheduled = true;
    setImmediate(() => {
      this.offerScheduled = false;
      this.deliver(this.offered.splice(0));
    });
  }

  /** Stops claiming, waits for the deliveries in flight and stores their results. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.recoveryTimer);
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
    await this.flushCompletions();
  }

  private track(work: Promise<unknown>): void {
    this.running.add(work);
    void work.finally(() => this.running.delete(work));
  }

  private scheduleRecovery(delayMs: number): void {
    if (this.stopped) return;
    this.recoveryTimer = setTimeout(() => {
      const room = this.maxInFlight - this.inFlight;
      const work = room > 0 ? this.claimDue(Math.min(room, 500)) : Promise.resolve(0);
      this.track(
        work.then((claimed) => this.scheduleRecovery(claimed >= 500 ? 0 : (this.options.recoveryIntervalMs ?? 1_000))),
      );
    }, delayMs);
  }

  private async claimDue(limit: number): Promise<number> {
    let claimed: ClaimedEvent[];
    try {
      claimed = await claimDueEvents(this.options.db, limit, this.leaseMs);
    } catch (error) {
      this.options.logger.warn("could not claim deliveries", { error: String(error) });
      return 0;
    }
    this.deliver(claimed);
    return claimed.length;
  }

  private deliver(events: ClaimedEvent[]): void {
    if (events.length === 0) return;
    // A send starting later than this could outlive the lease (taken moments ago) and race
    // another instance's claim; such an event is left for the next claim instead.
    const startBy = Date.now() + this.leaseMs - this.options.timeoutMs - 5_000;
    const tasks = events.map((event) => deliveryTask(event, this.options, startBy));
    this.inFlight += events.length;
    let pending = events.length;
    const work = this.options.deliveries
      .runBatch(tasks, (index, result) => {
        pending -= 1;
        this.inFlight -= 1;
        if (!result) return;
        this.completions.push(outcome(events[index]!.id, result));
        this.scheduleCompletion();
      })
      .catch((error: unknown) => {
        // The worker failed, not the destinations: the unanswered leases expire and are claimed again.
        this.options.logger.error("delivery worker failed", { events: pending, error: String(error) });
      })
      .finally(() => {
        this.inFlight -= pending;
        pending = 0;
      });
    this.track(work);
  }

  private scheduleCompletion(): void {
    if (this.completing) return;
    this.completing = new Promise<void>((resolve) => setImmediate(resolve)).then(() => this.flushCompletions());
  }

  private async flushCompletions(): Promise<void> {
    while (this.completions.length > 0) {
      const batch = this.completions.splice(0, 500);
      try {
        const completed = await completeEvents(this.options.db, batch);
        if (completed.length > 0) this.options.onCompleted?.(completed);
      } catch (error) {
        // Not stored: the leases expire and the events are delivered again (at least once).
        this.options.logger.error("could not store delivery results", { count: batch.length, error: String(error) });
      }
    }
    this.completing = undefined;
  }
}
