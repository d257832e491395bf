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
 * last report: a worker that does not answer within the wait (METRICS_WORKERS_WAIT_MS) counts
 * with its last counters and histograms (its gauges are left out), and so does one whose
 * channel has closed but that has not exited yet; one that exits leaves its last
 * counters and histograms to the instance's totals for good. rehook_cluster_workers says how
 * many workers answered and how many were late.
 */

/** How long the primary waits for the workers' samples before answering with what it has (METRICS_WORKERS_WAIT_MS's default). */
export const CLUSTER_SCRAPE_WAIT_MS = 2_000;
/** How much longer than that wait a worker waits for the primary's answer before its scrape gets 503. */
export const CLUSTER_SCRAPE_ANSWER_MARGIN_MS = 1_000;

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
 * The primary's memory of the workers' samples, and what one scrape adds up from it. Keeps
 * counters from going down: a worker that has reported before and is missing from a scrape
 * (busy, stopped, or disconnected but not yet exited) counts with its last counters and
 * histograms; one that exited leaves them to `retired` for good.
 */
export class WorkerTally {
  private readonly lastReports = new Map<number, MetricJson[]>();
  /** Counters and histograms of workers that have exited, added up. */
  private retired: MetricJson[] = [];

  /** A worker's fresh samples. */
  report(workerId: number, metrics: MetricJson[]): void {
    this.lastReports.set(workerId, metrics);
  }

  /** A worker exited: its last counters and histograms stay in the totals. */
  retire(workerId: number): void {
    const last = this.lastReports.get(workerId);
    this.lastReports.delete(workerId);
    if (last) this.retired = withRetired(this.retired, last);
  }

  /**
   * One scrape's text: the primary's own metrics, the retired totals, the fresh reports, and the
   * last counters of every other worker that has reported before. `asked` are the workers this
   * scrape waited for (one that never reported yet counts as late with nothing to add).
   */
  text(primary: MetricJson[], reports: ReadonlyMap<number, MetricJson[]>, asked: readonly number[]): Promise<string> {
    // A report from a worker that exited during the wait is in `retired` already: not counted twice.
    const answered = [...reports].filter(([workerId]) => this.lastReports.has(workerId)).map(([, metrics]) => metrics);
    const late = new Set([...asked, ...this.lastReports.keys()].filter((workerId) => !reports.has(workerId)));
    const lateCounters = [...late].flatMap((workerId) => {
      const last = this.lastReports.get(workerId);
      return last ? [monotonic(last)] : [];
    });
    return aggregate([primary, this.retired, ...answered, ...lateCounters, [workersGauge(answered.length, late.size)]]).metrics();
  }
}

/**
 * The primary's side: answers the workers' scrape requests with the whole instance's text.
 * Concurrent scrapes share one collection (a flood of scrapes asks each worker once at a time).
 * Returns a function that stops listening.
 */
export function serveClusterMetrics(options: { waitMs?: number } = {}): () => void {
  const waitMs = options.waitMs ?? CLUSTER_SCRAPE_WAIT_MS;
  const tally = new WorkerTally();
  const collections = new Map<number, (worker: Worker, metrics: MetricJson[]) => void>();
  let nextId = 0;
  let inFlight: Promise<string> | undefined;

  async function collect(): Promise<string> {
    const id = nextId++;
    const asked = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined && worker.isConnected());
    const reports = new Map<number, MetricJson[]>();
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, waitMs);
      collections.set(id, (worker, metrics) => {
        reports.set(worker.id, metrics);
        tally.report(worker.id, metrics);
        if (reports.size === asked.length) {
          clearTimeout(timer);
          resolve();
        }
      });
      // A worker whose channel closes meanwhile just does not answer: the wait covers it.
      for (const worker of asked) worker.send({ type: COLLECT, id } satisfies Message, ignoreSendError);
      if (asked.length === 0) {
        clearTimeout(timer);
        resolve();
      }
    });
    collections.delete(id);
    const primary = (await processMetrics().getMetricsAsJSON()) as unknown as MetricJson[];
    // From here on nothing awaits before the tally reads its state: an exit cannot land half-way.
    return tally.text(
      primary,
      reports,
      asked.map((worker) => worker.id),
    );
  }

  const onMessage = (worker: Worker, message: unknown) => {
    if (!isMessage(message)) return;
    if (message.type === REPORT) collections.get(message.id)?.(worker, message.metrics);
    else if (message.type === SCRAPE) {
      inFlight ??= collect().finally(() => {
        inFlight = undefined;
      });
      inFlight.then(
        (text) => {
          if (worker.isConnected()) worker.send({ type: TEXT, id: message.id, text } satisfies Message, ignoreSendError);
        },
        // Not answered: the worker's scrape gets 503 when its wait ends.
        () => {},
      );
    }
  };
  const onExit = (worker: Worker) => tally.retire(worker.id);
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

/** A message to a process whose channel has closed is dropped: whoever waits for it has a bound. */
const ignoreSendError = () => {};

/**
 * A worker's side: its scrapes are answered with the instance's text from the primary, and
 * the primary's requests for samples with this worker's own.
 */
export class ClusterMetricsScrape implements MetricsScrape {
  private readonly waiting = new Map<number, (text: string) => void>();
  private nextId = 0;
  /** The scrape this worker is waiting for: concurrent scrapes of this worker share it. */
  private pending: Promise<string> | undefined;
  private readonly answerMs: number;
  private readonly onMessage = (message: unknown) => {
    if (!isMessage(message)) return;
    if (message.type === TEXT) this.waiting.get(message.id)?.(message.text);
    else if (message.type === COLLECT) {
      void this.local.json().then((metrics) => sendToPrimary({ type: REPORT, id: message.id, metrics }));
    }
  };

  constructor(
    private readonly local: RehookMetrics,
    waitMs = CLUSTER_SCRAPE_WAIT_MS,
  ) {
    this.answerMs = waitMs + CLUSTER_SCRAPE_ANSWER_MARGIN_MS;
    process.on("message", this.onMessage);
  }

  get contentType(): string {
    return this.local.contentType;
  }

  text(): Promise<string> {
    this.pending ??= this.ask().finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  private ask(): Promise<string> {
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
      if (!sendToPrimary({ type: SCRAPE, id })) {
        clearTimeout(timer);
        this.waiting.delete(id);
        reject(new MetricsUnavailable("The primary process is gone (the instance is stopping); try again."));
      }
    });
  }

  /** Stops answering the primary (the server is closing). */
  close(): void {
    process.off("message", this.onMessage);
  }
}

/** Sends to the primary if the channel is open (it closes as the instance stops); false if not sent. */
function sendToPrimary(message: Message): boolean {
  if (!process.connected || !process.send) return false;
  process.send(message, undefined, undefined, ignoreSendError);
  return true;
}
