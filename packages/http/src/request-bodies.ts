import type { IncomingMessage } from "node:http";
import { performance } from "node:perf_hooks";
import { BodyBudget, uploadTooSlow, type BodyBudgetLimits, type BodyHold, type BodySlice, type MinUploadRate } from "@rehook/core";
import { clientIp } from "./client-ip.js";

export interface RequestBodiesOptions {
  limits: BodyBudgetLimits;
  minRate: MinUploadRate;
  /** X-Forwarded-For hops to believe for the client's address (0: the socket's peer), as everywhere else. */
  trustedProxyHops: number;
  /** Milliseconds on any fixed origin (tests move it; unset: performance.now). */
  now?: () => number;
}

/** An upload being read: the watch closes it when it falls behind the minimum rate. */
export interface OpenUpload {
  readonly startedAt: number;
  /** Body bytes received so far. */
  received: number;
  /** Ends the upload for its rate (called once, by the watch). */
  tooSlow(): void;
}

/**
 * The request bodies one server reads: the budget they share (MAX_BUFFERED_BODY_BYTES, its
 * slices and per-client caps) and the watch on slow uploads. One per server; routes built
 * without one share the process's default (the defaults of every limit).
 */
export class RequestBodies {
  readonly budget: BodyBudget;
  readonly now: () => number;
  private readonly uploads = new Set<OpenUpload>();
  private sweeper: NodeJS.Timeout | undefined;
  private readonly sweepMs: number;

  constructor(private readonly options: RequestBodiesOptions) {
    this.budget = new BodyBudget(options.limits);
    this.now = options.now ?? (() => performance.now());
    // A slow upload is closed within a second of falling behind (sooner with a short grace).
    this.sweepMs = Math.min(1_000, Math.max(25, Math.floor(options.minRate.graceMs / 4)));
  }

  /** A new, empty hold for `req`'s body in `slice`, counted under its client's address (and `target`: a capture's endpoint). */
  open(req: IncomingMessage, slice: BodySlice, target?: string): BodyHold {
    return this.budget.open(slice, clientIp(req, this.options.trustedProxyHops), target);
  }

  /** Watches an upload's rate until the returned function is called. */
  watch(upload: OpenUpload): () => void {
    if (this.options.minRate.bytesPerSecond <= 0) return () => {};
    this.uploads.add(upload);
    // One timer for every upload, running only while there are some.
    this.sweeper ??= setInterval(() => this.sweep(), this.sweepMs).unref();
    return () => {
      this.uploads.delete(upload);
      if (this.uploads.size === 0 && this.sweeper) {
        clearInterval(this.sweeper);
        this.sweeper = undefined;
      }
    };
  }

  /** Uploads being read now (tests, diagnostics). */
  get reading(): number {
    return this.uploads.size;
  }

  private sweep(): void {
    const now = this.now();
    for (const upload of this.uploads) {
      if (uploadTooSlow(upload.startedAt, upload.received, now, this.options.minRate)) upload.tooSlow();
    }
  }
}
