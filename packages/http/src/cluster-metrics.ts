import cluster, { type Worker } from "node:cluster";
import { AggregatorRegistry, type Aggregator, type Registry } from "prom-client";
import { MetricsUnavailable, processMetrics, type MetricJson, type MetricsScrape, type RehookMetrics } from "./metrics.js";

/*
 * GET /metrics under `rehook start --workers N`: one scrape of the whole instance.
 *
 * The primary accepts every connection and hands it to a worker, so without this each scrape
 * showed one worker's counters and the totals went up and down between scrapes. Now the worker
 * that takes a scrape asks the primary, the primary asks every worker for its samples (as
 * prom-client's JSON), adds them up with prom-client's AggregatorRegistry.aggregate (each
 * metric's `aggregator`: counters, histograms and pools sum, rehook_pending_events takes the
 * largest) and adds its own process metrics; the worker answers with that text.
 *
 * Counters must never go down, or Prometheus reads a reset. So the primary keeps each worker's
 * last report: a worker that does not answer within CLUSTER_SCRAPE_WAIT_MS counts with its
 * last counters and histograms (its gauges are left out), and one that exits leaves its last
 * counters and histograms to the instance's totals for good. rehook_cluster_workers says how
 * many workers answered and how many were late.
 */

/** How long the primary waits for the workers' samples before answering with what it has. */
export const CLUSTER_SCRAPE_WAIT_MS = 2_000;
/** How long a worker waits for the primary's answer before its scrape gets 503. */
export const CLUSTER_SCRAPE_ANSWER_MS = CLUSTER_SCRAPE_WAIT_MS + 1_000;

const SCRAPE = "rehook:metrics-scrape"; // worker → primary: a scraper asks me
const COLLECT = "rehook:metrics-collect"; // primary → worker: your samples, please
const REPORT = "rehook:metrics-report"; // worker → primary: my samples
const TEXT = "rehook:metrics-text"; // primary → worker: the instance's text

type Message = { type: typeof SCRAPE | typeof COLLECT; id: number } | { type: typeof REPORT; id: number; metrics: MetricJson[] } | { type: typeof TEXT; id: number; text: string };

const isMessage = (message: unknown): message is Message => typeof (message as Message | null)?.type === "string" && (message as Message).type.startsWith("rehook:metrics-");

/**
 * Process metrics whose prom-client aggregator does not fit an instance: the event-loop lag of
 * the slowest process (an average hides one stuck worker), and the primary's start time (the
 * instance's counters start with it; prom-client leaves it out).
 */
const AGGREGATOR_OVERRIDES: Record<string, Aggregator> = {
  nodejs_eventloop_lag_seconds: "max",
  nodejs_eventloop_lag_mean_seconds: "max",
  nodejs_eventloop_lag_stddev_seconds: "max",
  nodejs_eventloop_lag_p50_seconds: "max",
  nodejs_eventloop_lag_p90_seconds: "max",
  nodejs_eventloop_lag_p99_seconds: "max",
  process_start_time_seconds: "first",
};

/** Counters and histograms only: what must keep counting after the worker stops reporting. */
const monotonic = (metrics: MetricJson[]) => metrics.filter((metric) => metric.type === "counter" || metric.type === "histogram");

/** Several reports as one, by each metric's aggregator. */
function aggregate(reports: MetricJson[][]): Registry {
  const overridden = reports.map((report) => report.map((metric) => (AGGREGATOR_OVERRIDES[metric.name] ? { ...metric, aggregator: AGGREGATOR_OVERRIDES[metric.name]! } : metric)));
  return AggregatorRegistry.aggregate(overridden);
}

function workersGauge(answered: number, late: number): MetricJson {
  return {
    name: "rehook_cluster_workers",
    help: "Workers of `rehook start --workers N` by whether they answered this scrape in time (late: their last counters are shown, their gauges left out).",
    type: "gauge",
    aggregator: "sum",
    values: [
      { labels: { state: "answered" }, value: answered },
      { labels: { state: "late" }, value: late },
    ],
  };
}

/**
 * The primary's side: answers the workers' scrape requests with the whole instance's text.
 * Returns a function that stops listening.
 */
export function serveClusterMetrics(options: { waitMs?: number } = {}): () => void {
  const waitMs = options.waitMs ?? CLUSTER_SCRAPE_WAIT_MS;
  const lastReports = new Map<number, MetricJson[]>();
  /** Counters and histograms of workers that have exited, added up. */
  let retired: MetricJson[] = [];
  const collections = new Map<number, (worker: Worker, metrics: MetricJson[]) => void>();
  let nextId = 0;

  async function collect(): Promise<string> {
    const id = nextId++;
    const asked = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined && worker.isConnected());
    const reports = new Map<number, MetricJson[]>();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, waitMs);
      collections.set(id, (worker, metrics) => {
        reports.set(worker.id, metrics);
        lastReports.set(worker.id, metrics);
        if (reports.size === asked.length) {
          clearTimeout(timer);
          resolve();
        }
      });
      for (const worker of asked) worker.send({ type: COLLECT, id } satisfies Message);
      if (asked.length === 0) {
        clearTimeout(timer);
        resolve();
      }
    });
    collections.delete(id);
    const primary = (await processMetrics().getMetricsAsJSON()) as unknown as MetricJson[];
    // From here on nothing awaits: a worker's exit cannot move its numbers to `retired` half-way.
    // One that exited during the wait is in `retired` already, not counted again from its report.
    const answered = [...reports].filter(([workerId]) => lastReports.has(workerId)).map(([, metrics]) => metrics);
    const late = asked.filter((worker) => !reports.has(worker.id) && lastReports.has(worker.id));
    const parts = [primary, retired, ...answered, ...late.map((worker) => monotonic(lastReports.get(worker.id)!)), [workersGauge(answered.length, asked.length - reports.size)]];
    return aggregate(parts).metrics();
  }

  const onMessage = (worker: Worker, message: unknown) => {
    if (!isMessage(message)) return;
    if (message.type === REPORT) collections.get(message.id)?.(worker, message.metrics);
    else if (message.type === SCRAPE) {
      void collect().then((text) => {
        if (worker.isConnected()) worker.send({ type: TEXT, id: message.id, text } satisfies Message);
      });
    }
  };
  const onExit = (worker: Worker) => {
    const last = lastReports.get(worker.id);
    lastReports.delete(worker.id);
    if (last) retired = withRetired(retired, last);
  };
  cluster.on("message", onMessage);
  cluster.on("exit", onExit);
  return () => {
    cluster.off("message", onMessage);
    cluster.off("exit", onExit);
  };
}

/** The retired totals plus one more exited worker's last counters and histograms. */
function withRetired(retired: MetricJson[], last: MetricJson[]): MetricJson[] {
  return aggregate([retired, monotonic(last)])
    .getMetricsAsArray()
    .map((metric) => (metric as unknown as { get(): MetricJson }).get());
}

/**
 * A worker's side: its scrapes are answered with the instance's text from the primary, and
 * the primary's requests for samples with this worker's own.
 */
export class ClusterMetricsScrape implements MetricsScrape {
  private readonly waiting = new Map<number, (text: string) => void>();
  private nextId = 0;
  private readonly onMessage = (message: unknown) => {
    if (!isMessage(message)) return;
    if (message.type === TEXT) this.waiting.get(message.id)?.(message.text);
    else if (message.type === COLLECT) {
      void this.local.json().then((metrics) => process.send?.({ type: REPORT, id: message.id, metrics } satisfies Message));
    }
  };

  constructor(
    private readonly local: RehookMetrics,
    private readonly answerMs = CLUSTER_SCRAPE_ANSWER_MS,
  ) {
    process.on("message", this.onMessage);
  }

  get contentType(): string {
    return this.local.contentType;
  }

  text(): Promise<string> {
    const id = this.nextId++;
    return new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        reject(new MetricsUnavailable(`The other worker processes' metrics did not arrive within ${this.answerMs} ms; try again.`));
      }, this.answerMs);
      this.waiting.set(id, (text) => {
        clearTimeout(timer);
        this.waiting.delete(id);
        resolve(text);
      });
      process.send?.({ type: SCRAPE, id } satisfies Message);
    });
  }

  /** Stops answering the primary (the server is closing). */
  close(): void {
    process.off("message", this.onMessage);
  }
}
