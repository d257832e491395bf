import {
  forwardableHeaders,
  forwardTarget,
  signStandardWebhook,
  type HeaderList,
  type Logger,
} from "@rehook/core";
import {
  BODY_BYTES_PER_READ,
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
  /** Body bytes of recovered events held at once, claimed and not yet answered (MAX_RECOVERY_BYTES_IN_FLIGHT). */
  maxRecoveryBytes?: number;
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
 * What goes on the wire for one claimed event: to its destination, with path forwarding. A
 * sub-path that could leave the destination's path (stored before capture refused it) makes
 * a task the worker fails at once, with the reason, so the attempt is recorded like any other.
 */
export function deliveryTask(event: ClaimedEvent, options: SendOptions, startBy?: number): DeliveryTask {
  const target = forwardTarget(event.destinationUrl, event.path, event.query);
  if (target.ok) return outboundTask(event, target.url, options, startBy);
  return { ...outboundTask(event, event.destinationUrl, options, startBy), refused: target.reason };
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

/** Most events one recovery claim takes. */
const CLAIM_ROWS = 500;
/** Body bytes of recovered events a dispatcher holds at once by default (claimed, not yet answered). */
export const MAX_RECOVERY_BYTES_IN_FLIGHT = BODY_BYTES_PER_READ;

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
  private recovering = false;
  private recoveryBytes = 0;
  private readonly maxRecoveryBytes: number;
  private stopped = false;
  private readonly running = new Set<Promise<unknown>>();

  constructor(private readonly options: DispatcherOptions) {
    // Well past the forward timeout (65 s for the default 30 s), so a slow but live attempt
    // is never taken over, and short enough that a crashed instance's work resumes soon.
    this.leaseMs = options.timeoutMs * 2 + 5_000;
    this.maxInFlight = options.maxInFlight ?? 2_000;
    this.maxRecoveryBytes = options.maxRecoveryBytes ?? MAX_RECOVERY_BYTES_IN_FLIGHT;
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
      void this.deliver(this.offered.splice(0));
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
    clearTimeout(this.recoveryTimer);
    this.recoveryTimer = setTimeout(() => {
      this.recovering = true;
      this.track(
        this.recover().then((more) => {
          this.recovering = false;
          this.scheduleRecovery(more ? 0 : (this.options.recoveryIntervalMs ?? 1_000));
        }),
      );
    }, delayMs);
  }

  /**
   * Claims what is due, within the room left in flight and the recovery's byte budget
   * (recovered bodies, up to 10 MiB each, stay in memory until answered). Answers whether
   * more is probably due at once (the claim was cut by rows).
   */
  private async recover(): Promise<boolean> {
    const room = this.maxInFlight - this.inFlight;
    const budget = this.maxRecoveryBytes - this.recoveryBytes;
    if (room <= 0 || budget <= 0) return false;
    const limit = Math.min(room, CLAIM_ROWS);
    let claimed: ClaimedEvent[];
    try {
      claimed = await claimDueEvents(this.options.db, limit, this.leaseMs, budget);
    } catch (error) {
      this.options.logger.warn("could not claim deliveries", { error: String(error) });
      return false;
    }
    if (claimed.length === 0) return false;
    const bytes = claimed.reduce((sum, event) => sum + event.body.byteLength, 0);
    this.recoveryBytes += bytes;
    void this.deliver(claimed).finally(() => {
      this.recoveryBytes -= bytes;
      // Cut by bytes: the next claim waited for this room, not for the interval.
      if (bytes >= budget && !this.recovering) this.scheduleRecovery(0);
    });
    return claimed.length >= limit;
  }

  /** Sends events through the worker pool; settles once every one is answered (or its worker failed). */
  private deliver(events: ClaimedEvent[]): Promise<void> {
    if (events.length === 0) return Promise.resolve();
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
    return work;
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
