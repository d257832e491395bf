import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { collectDefaultMetrics, Registry, type Aggregator, type Metric } from "prom-client";
import {
  CAPTURE_REJECTIONS,
  CHAT_POST_RESULTS,
  DELIVERY_OUTCOMES,
  type CaptureBatchMetrics,
  type CaptureMetrics,
  type CaptureRejection,
  type ChatMetrics,
  type ChatPostResult,
  type DeliveryAttemptOutcome,
  type DeliveryMetrics,
  type Logger,
  type PoolStats,
} from "@rehook/core";
import { sendError } from "./respond.js";

/*
 * Every metric of GET /metrics, in one place (docs/install-and-operations.md, "Metrics", lists them).
 *
 * The hot paths (a capture, a stored delivery result, a batch statement, a chat post) only
 * add to plain numbers here: an increment, and for a histogram a walk over a dozen bounds.
 * Nothing is allocated for it (pnpm bench:metrics-cost). prom-client's own Counter.inc and Histogram.observe hash
 * their labels into a new string and allocate on every call, so they are not used on those
 * paths; instead each metric below is read from the numbers at scrape time, and prom-client
 * renders the text format. Each RehookMetrics has a Registry of its own, never prom-client's
 * global one: tests run several servers in one process, each with its own counts.
 *
 * prom-client's default metrics (CPU, memory, event-loop lag, heap, GC) describe the process,
 * not a server, and collecting them starts an event-loop delay monitor and a GC observer that
 * cannot be stopped again: they are collected once per process, in a registry of their own
 * (not the global one either), and appended to every server's scrape.
 */

/** Upper bounds, in seconds, of rehook_capture_duration_seconds: headers in to answer out. */
export const CAPTURE_DURATION_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Upper bounds, in seconds, of rehook_delivery_duration_seconds (FORWARD_TIMEOUT_MS is at most 300 s). */
export const DELIVERY_DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** Upper bounds of rehook_capture_batch_rows (the writer puts at most 1,000 rows in a statement). */
export const CAPTURE_BATCH_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000];
/** How long a read of rehook_pending_events is reused. */
export const PENDING_CACHE_MS = 5_000;
/** How long a scrape waits for that read; past it the gauge is left out of this scrape. */
export const PENDING_READ_WAIT_MS = 1_000;

let processRegistry: Registry | undefined;

/** The process and Node.js metrics, collected once per process (the `--workers` primary's too). */
export function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}

/** A histogram's counts as plain numbers: one slot per bound (not cumulative) and one above the last. */
export class Buckets {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    const bounds = this.bounds;
    let slot = 0;
    while (slot < bounds.length && value > bounds[slot]!) slot += 1;
    this.counts[slot]! += 1;
    this.sum += value;
    this.count += 1;
  }
}

type Labels = Record<string, string>;
interface Sample {
  value: number;
  labels: Labels;
  /** For a histogram's lines: name_bucket, name_sum, name_count. */
  metricName?: string;
}
type MetricType = "counter" | "gauge" | "histogram";

/** One metric as prom-client's getMetricsAsJSON gives it (its `type` is the text format's word at run time). */
export interface MetricJson {
  name: string;
  help: string;
  type: string;
  aggregator: Aggregator;
  values: Array<{ value: number; labels: Record<string, string | number>; metricName?: string }>;
}

/**
 * A metric whose samples are computed when it is scraped. It has the shape prom-client's
 * Registry reads from its own metric classes (name, help, type, get(), reset()). Its
 * aggregator says how `--workers N` adds the workers' samples up (cluster-metrics.ts):
 * counters and histograms sum, and so do gauges unless one says otherwise.
 */
class ScrapedMetric {
  constructor(
    readonly name: string,
    readonly help: string,
    readonly type: MetricType,
    private readonly samples: () => Sample[] | Promise<Sample[]>,
    readonly aggregator: Aggregator = "sum",
  ) {}

  async get(): Promise<{ name: string; help: string; type: MetricType; aggregator: string; values: Sample[] }> {
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values: await this.samples() };
  }

  /** Registry.resetMetrics(): these totals are what happened in this process; nothing to reset. */
  reset(): void {}
}

function histogramSamples(name: string, series: Array<{ labels: Labels; buckets: Buckets }>): Sample[] {
  const samples: Sample[] = [];
  for (const { labels, buckets } of series) {
    let cumulative = 0;
    buckets.bounds.forEach((bound, slot) => {
      cumulative += buckets.counts[slot]!;
      samples.push({ metricName: `${name}_bucket`, labels: { ...labels, le: String(bound) }, value: cumulative });
    });
    samples.push({ metricName: `${name}_bucket`, labels: { ...labels, le: "+Inf" }, value: buckets.count });
    samples.push({ metricName: `${name}_sum`, labels, value: buckets.sum });
    samples.push({ metricName: `${name}_count`, labels, value: buckets.count });
  }
  return samples;
}

/** A record with a zero for each of a fixed list of label values. */
function zeros<K extends string>(keys: readonly K[]): Record<K, number> {
  return Object.fromEntries(keys.map((key) => [key, 0])) as Record<K, number>;
}

function bucketsFor<K extends string>(keys: readonly K[], bounds: readonly number[]): Record<K, Buckets> {
  return Object.fromEntries(keys.map((key) => [key, new Buckets(bounds)])) as Record<K, Buckets>;
}

/** What GET /metrics renders: one process's metrics, or with `--workers N` every worker's added up. */
export interface MetricsScrape {
  /** The text format; throws MetricsUnavailable when it cannot be had in time (answered 503). */
  text(): Promise<string>;
  readonly contentType: string;
}

/** The scrape could not be put together in time (a `--workers` primary that does not answer). */
export class MetricsUnavailable extends Error {}

/** How long a scraper is told to wait after a 503. */
export const METRICS_RETRY_AFTER_SECONDS = 5;

/** What the metrics read from the rest of the server at scrape time. */
export interface MetricsSources {
  /** Events stored and not yet delivered or failed (rehook_pending_events); read at most once per PENDING_CACHE_MS. */
  pendingEvents?: () => Promise<number>;
  /** The database pools by name (the `pool` label); undefined stats leave that pool out. */
  pools?: () => Array<{ pool: string; stats: PoolStats | undefined }>;
}

export interface RehookMetricsOptions extends MetricsSources {
  logger?: Logger;
  /** prom-client's process and Node.js metrics (event-loop lag, heap, GC, CPU, file descriptors). Default true. */
  defaultMetrics?: boolean;
}

/**
 * One server's metrics: what its capture handler, capture writer, delivery dispatcher and
 * chat notifier counted, and what is read at scrape time (pending events, database pools).
 */
export class RehookMetrics implements MetricsScrape, CaptureMetrics, CaptureBatchMetrics, DeliveryMetrics, ChatMetrics {
  readonly registry = new Registry();
  private storedCaptures = 0;
  private duplicateCaptures = 0;
  private readonly rejected = zeros(CAPTURE_REJECTIONS);
  private readonly captureDurations = { stored: new Buckets(CAPTURE_DURATION_BUCKETS), rejected: new Buckets(CAPTURE_DURATION_BUCKETS) };
  private readonly batchRows = new Buckets(CAPTURE_BATCH_BUCKETS);
  private readonly deliveries = zeros(DELIVERY_OUTCOMES);
  private readonly deliveryDurations = bucketsFor(DELIVERY_OUTCOMES, DELIVERY_DURATION_BUCKETS);
  private readonly chatPosts = zeros(CHAT_POST_RESULTS);
  private pending: { value: number; readAt: number } | undefined;
  private pendingRead: Promise<void> | undefined;

  private readonly process: Registry | undefined;

  constructor(private readonly options: RehookMetricsOptions = {}) {
    this.process = options.defaultMetrics === false ? undefined : processMetrics();
    const add = (metric: ScrapedMetric) => this.registry.registerMetric(metric as unknown as Metric);

    add(
      new ScrapedMetric("rehook_events_captured_total", "Requests on capture URLs by outcome: stored (answered 200 after the row committed) or rejected (not stored, with the reason).", "counter", () => [
        { labels: { outcome: "stored" }, value: this.storedCaptures },
        ...CAPTURE_REJECTIONS.map((reason) => ({ labels: { outcome: "rejected", reason }, value: this.rejected[reason] })),
      ]),
    );
    add(
      new ScrapedMetric("rehook_duplicate_events_total", "Stored captures the endpoint's dedup rule found to repeat an earlier event within its window (stored and answered, not forwarded); also counted as stored above.", "counter", () => [
        { labels: {}, value: this.duplicateCaptures },
      ]),
    );
    add(
      new ScrapedMetric("rehook_capture_duration_seconds", "Time from a capture request's headers to its answer, by outcome (stored or rejected).", "histogram", () =>
        histogramSamples("rehook_capture_duration_seconds", [
          { labels: { outcome: "stored" }, buckets: this.captureDurations.stored },
          { labels: { outcome: "rejected" }, buckets: this.captureDurations.rejected },
        ]),
      ),
    );
    add(
      new ScrapedMetric("rehook_capture_batch_rows", "Captures stored by each group-commit statement.", "histogram", () =>
        histogramSamples("rehook_capture_batch_rows", [{ labels: {}, buckets: this.batchRows }]),
      ),
    );
    add(
      new ScrapedMetric("rehook_deliveries_total", "Forwarding attempts whose result was stored, by outcome (a failed attempt that will be retried counts as failed).", "counter", () =>
        DELIVERY_OUTCOMES.map((outcome) => ({ labels: { outcome }, value: this.deliveries[outcome] })),
      ),
    );
    add(
      new ScrapedMetric("rehook_delivery_duration_seconds", "Latency of each stored forwarding attempt (connect, send, whole answer), by outcome.", "histogram", () =>
        histogramSamples(
          "rehook_delivery_duration_seconds",
          DELIVERY_OUTCOMES.map((outcome) => ({ labels: { outcome }, buckets: this.deliveryDurations[outcome] })),
        ),
      ),
    );
    add(
      new ScrapedMetric("rehook_chat_posts_total", "Chat notification posts by how the provider's answer was judged.", "counter", () =>
        CHAT_POST_RESULTS.map((result) => ({ labels: { result }, value: this.chatPosts[result] })),
      ),
    );
    if (options.pendingEvents) {
      add(
        new ScrapedMetric("rehook_pending_events", "Events stored and not yet delivered or failed, in the whole database (from event_counts, read at most every 5 s).", "gauge", async () => {
          const value = await this.pendingEvents();
          return value === undefined ? [] : [{ labels: {}, value }];
        },
        // Every worker reads the same database-wide number (at slightly different times): the latest is the largest.
        "max"),
      );
    }
    if (options.pools) {
      const pools = options.pools;
      const read = () => pools().flatMap(({ pool, stats }) => (stats ? [{ pool, stats }] : []));
      add(
        new ScrapedMetric("rehook_db_pool_connections", "Open database connections by pool and state (in_use, idle).", "gauge", () =>
          read().flatMap(({ pool, stats }) => [
            { labels: { pool, state: "in_use" }, value: stats.inUse },
            { labels: { pool, state: "idle" }, value: stats.idle },
          ]),
        ),
      );
      add(
        new ScrapedMetric("rehook_db_pool_waiting", "Queries waiting for a database connection, by pool.", "gauge", () =>
          read().map(({ pool, stats }) => ({ labels: { pool }, value: stats.waiting })),
        ),
      );
      add(
        new ScrapedMetric("rehook_db_pool_max_connections", "Most connections each database pool opens.", "gauge", () =>
          read().map(({ pool, stats }) => ({ labels: { pool }, value: stats.max })),
        ),
      );
    }
  }

  captureStored(seconds: number): void {
    this.storedCaptures += 1;
    this.captureDurations.stored.observe(seconds);
  }

  captureDuplicate(): void {
    this.duplicateCaptures += 1;
  }

  captureRejected(reason: CaptureRejection, seconds: number): void {
    this.rejected[reason] += 1;
    this.captureDurations.rejected.observe(seconds);
  }

  captureBatch(rows: number): void {
    this.batchRows.observe(rows);
  }

  deliveryAttempt(outcome: DeliveryAttemptOutcome, seconds: number): void {
    this.deliveries[outcome] += 1;
    this.deliveryDurations[outcome].observe(seconds);
  }

  chatPost(result: ChatPostResult): void {
    this.chatPosts[result] += 1;
  }

  /** The text format (version 0.0.4), as a scrape gets it: this server's metrics, then the process's. */
  async text(): Promise<string> {
    const [own, shared] = await Promise.all([this.registry.metrics(), this.process?.metrics()]);
    return shared === undefined ? own : `${own}\n${shared}`;
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** Every sample as prom-client's JSON (this server's, then the process's), for a `--workers` primary to add up. */
  async json(): Promise<MetricJson[]> {
    const [own, shared] = await Promise.all([this.registry.getMetricsAsJSON(), this.process?.getMetricsAsJSON() ?? []]);
    return [...own, ...shared] as unknown as MetricJson[];
  }

  /**
   * The pending count, read again when the last read is older than PENDING_CACHE_MS (one
   * read at a time, however many scrapes). A read that fails or takes longer than
   * PENDING_READ_WAIT_MS leaves the gauge out of this scrape rather than hold it up.
   */
  private async pendingEvents(): Promise<number | undefined> {
    const fresh = () => (this.pending && Date.now() - this.pending.readAt < PENDING_CACHE_MS ? this.pending.value : undefined);
    const cached = fresh();
    if (cached !== undefined) return cached;
    this.pendingRead ??= this.options.pendingEvents!()
      .then(
        (value) => {
          this.pending = { value, readAt: Date.now() };
        },
        (error: unknown) => this.options.logger?.warn("metrics could not read the pending events", { error: String(error) }),
      )
      .finally(() => {
        this.pendingRead = undefined;
      });
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, PENDING_READ_WAIT_MS);
    });
    try {
      await Promise.race([this.pendingRead, waited]);
    } finally {
      clearTimeout(timer);
    }
    return fresh();
  }
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

export interface MetricsHandlerOptions {
  /** METRICS_TOKEN: scrapes must send `Authorization: Bearer <token>`. */
  token?: string;
}

/**
 * GET (or HEAD) /metrics: the text format. With a token, a request without the matching
 * bearer gets 401; the comparison is of SHA-256 digests in constant time, so neither the
 * token's length nor its prefix leaks through timing.
 */
export function createMetricsHandler(metrics: MetricsScrape, options: MetricsHandlerOptions = {}) {
  const expected = options.token === undefined ? undefined : digest(options.token);
  return async function handleMetrics(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== "GET" && req.method !== "HEAD") {
      sendError(res, 405, "method_not_allowed", `${req.method} is not allowed here: use GET /metrics.`, { allow: "GET, HEAD" });
      return;
    }
    if (expected && !bearerMatches(req.headers.authorization, expected)) {
      sendError(res, 401, "unauthorized", "The metrics need Authorization: Bearer <METRICS_TOKEN>.", { "www-authenticate": 'Bearer realm="rehook-metrics"' });
      return;
    }
    let text: string;
    try {
      text = await metrics.text();
    } catch (error) {
      if (!(error instanceof MetricsUnavailable)) throw error;
      sendError(res, 503, "unavailable", error.message, { "retry-after": String(METRICS_RETRY_AFTER_SECONDS) });
      return;
    }
    res.writeHead(200, {
      "content-type": metrics.contentType,
      "content-length": String(Buffer.byteLength(text)),
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    });
    res.end(req.method === "HEAD" ? undefined : text);
  };
}

function bearerMatches(header: string | undefined, expected: Buffer): boolean {
  const match = header === undefined ? null : /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header);
  // A missing header is compared too, so a refusal takes as long whatever was sent.
  return timingSafeEqual(digest(match?.[1] ?? ""), expected) && match !== null;
}
