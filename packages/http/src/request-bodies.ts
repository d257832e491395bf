import type { IncomingMessage } from "node:http";
import { performance } from "node:perf_hooks";
import { BodyBudget, SMALL_BODY_GRACE_MS, uploadTooSlow, type BodyBudgetLimits, type BodyHold, type BodySlice, type Config, type MinUploadRate } from "@rehook/core";
import { clientIp } from "./client-ip.js";

export interface RequestBodiesOptions {
  limits: BodyBudgetLimits;
  minRate: MinUploadRate;
  /** X-Forwarded-For hops to believe for the client's address (0: the socket's peer), as everywhere else. */
  trustedProxyHops: number;
  /** Milliseconds on any fixed origin (tests move it; unset: performance.now). */
  now?: () => number;
}

/** What a route knows of a body's sender before reading it. */
export interface BodyRequester {
  /** A capture's endpoint (slug). */
  target?: string;
  /** The API key the request was authenticated with: its bodies count per key, not per address. */
  principal?: string;
  /** Signed in, or with a valid API key: may use the part of the slice kept from anonymous requests. */
  authenticated?: boolean;
}

/** An upload being read: the watch closes it when it falls behind the minimum rate. */
export interface OpenUpload {
  readonly startedAt: number;
  /** The rate this upload must keep up (a small body's grace is shorter). */
  readonly rate: MinUploadRate;
  /** Body bytes received so far. */
  received: number;
  /** Ends the upload for its rate (called once, by the watch). */
  tooSlow(): void;
}

/**
 * The request bodies one server reads: the budget they share (MAX_BUFFERED_BODY_BYTES, its
 * slices and per-client caps) and the watch on slow uploads. One per server, made from its
 * configuration and handed to every route that reads a body.
 */
export class RequestBodies {
  readonly budget: BodyBudget;
  readonly now: () => number;
  private readonly uploads = new Set<OpenUpload>();
  private sweeper: NodeJS.Timeout | undefined;
  private readonly sweepMs: number;

  /** The bodies one server reads, within MAX_BUFFERED_BODY_BYTES, its slices and caps, at the minimum rate. */
  static fromConfig(config: Pick<Config, "bodyBudget" | "minUploadRate" | "trustedProxyHops">, now?: () => number): RequestBodies {
    return new RequestBodies({ limits: config.bodyBudget, minRate: config.minUploadRate, trustedProxyHops: config.trustedProxyHops, ...(now ? { now } : {}) });
  }

  constructor(private readonly options: RequestBodiesOptions) {
    this.budget = new BodyBudget(options.limits);
    this.now = options.now ?? (() => performance.now());
    // A slow upload is closed within a second of falling behind (sooner with a short grace).
    this.sweepMs = Math.min(1_000, Math.max(25, Math.floor(Math.min(options.minRate.graceMs, SMALL_BODY_GRACE_MS) / 4)));
  }

  /** The minimum rate uploads are held to (before a small body's shorter grace). */
  get minRate(): MinUploadRate {
    return this.options.minRate;
  }

  /**
   * A new, empty hold for `req`'s body in `slice`, counted under its client's address, or
   * under `who.principal` (an API key's team) when given; `who.target` is a capture's endpoint.
   */
  open(req: IncomingMessage, slice: BodySlice, who: BodyRequester = {}): BodyHold {
    const client = { address: clientIp(req, this.options.trustedProxyHops), ...(who.principal ? { principal: who.principal } : {}), authenticated: who.authenticated ?? who.principal !== undefined };
    return this.budget.open(slice, client, who.target);
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
      if (uploadTooSlow(upload.startedAt, upload.received, now, upload.rate)) upload.tooSlow();
    }
  }
}
