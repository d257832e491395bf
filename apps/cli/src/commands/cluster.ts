import cluster, { type Worker } from "node:cluster";
import type { Config, Logger } from "@rehook/core";
import { serveClusterMetrics } from "@rehook/http";
import { openDatabase, startEmbeddedPostgres } from "@rehook/db";
import { requireDefaultTeam } from "@rehook/services";
import { startLine } from "../start-line.js";
import { onStopSignals } from "../stop-signals.js";
import type { ListeningMessage, StopMessage } from "./cluster-worker.js";

// A worker that keeps dying is not helped by more restarts: give up after this many in the window.
const MAX_CRASHES = 5;
const CRASH_WINDOW_MS = 60_000;
const FIRST_RESTART_DELAY_MS = 500;
const MAX_RESTART_DELAY_MS = 10_000;

const isListening = (message: unknown): message is ListeningMessage => (message as ListeningMessage | null)?.type === "listening";

/** The exit as a person reads it: "code 1" or "signal SIGKILL". */
const how = (code: number | null, signal: string | null) => (signal ? `signal ${signal}` : `code ${code}`);

/**
 * `rehook start --workers N`'s primary: it serves nothing itself. It does what must happen once
 * (start the embedded PostgreSQL, migrate), then forks the workers one after another — each
 * starts while no other does, so their start-up writes (partitions, upkeep jobs) never race —
 * restarts a worker that dies, and passes signals on.
 */
export async function runPrimary(config: Config, logger: Logger, count: number, listening: (url: string) => void = () => {}): Promise<void> {
  const embedded = config.databaseUrl ? undefined : await startEmbeddedPostgres({ dataDir: config.dataDir, log: (message) => logger.info(message) });
  try {
    const databaseUrl = config.databaseUrl ?? embedded!.url;
    // Migrated here, once: each worker's own check then finds nothing to apply.
    const database = await openDatabase({
      databaseUrl,
      dataDir: config.dataDir,
      ormPoolSize: 1,
      migrate: true,
      log: (message) => logger.info(message),
      wait: { timeoutMs: config.databaseWaitMs, log: (message) => logger.warn(message) },
    });
    if (database.applied.length > 0) logger.info("applied migrations", { names: database.applied.join(",") });
    // Checked here too, so a bad OIDC_DEFAULT_TEAM is one line before any worker starts.
    try {
      await requireDefaultTeam({ orm: database.orm }, config.sso);
    } finally {
      await database.close();
    }
    await new Supervisor(config, logger, count, { DATABASE_URL: databaseUrl }, listening).run();
  } finally {
    // Last: after every worker has let go of the database.
    await embedded?.stop();
  }
}

class Supervisor {
  private readonly workers = new Set<Worker>();
  private crashes: number[] = [];
  private starting = true;
  private stopSignal: NodeJS.Signals | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  private failure: Error | undefined;
  private allExited = () => {};

  constructor(
    private readonly config: Config,
    private readonly logger: Logger,
    private readonly count: number,
    private readonly env: Record<string, string>,
    private readonly listening: (url: string) => void,
  ) {}

  async run(): Promise<void> {
    const done = new Promise<void>((resolve) => (this.allExited = resolve));
    const removeSignalHandlers = onStopSignals((signal) => this.stop(signal));
    // The workers' scrapes of /metrics are answered here, for the whole instance.
    const stopMetrics = this.config.metricsEnabled ? serveClusterMetrics({ waitMs: this.config.metricsWorkersWaitMs }) : () => {};
    try {
      let first: ListeningMessage | undefined;
      for (let started = 0; started < this.count && !this.stopSignal; started++) {
        try {
          const listening = await this.fork();
          first ??= listening;
        } catch (error) {
          this.failure = error as Error;
          this.stop("SIGINT");
        }
      }
      this.starting = false;
      if (first && !this.stopSignal) {
        this.logger.info(startLine(first.url, first.hint), { workers: this.count, base_url: this.config.baseUrl });
        if (first.metricsUrl) this.logger.info(`metrics on ${first.metricsUrl}/metrics`);
        this.listening(first.url);
      }
      await done;
    } finally {
      removeSignalHandlers();
      stopMetrics();
    }
    if (this.failure) throw this.failure;
  }

  /** Starts a worker; settles when it listens, or fails if it exits first. */
  private fork(): Promise<ListeningMessage> {
    const worker = cluster.fork(this.env);
    this.workers.add(worker);
    return new Promise((resolve, reject) => {
      let listening = false;
      worker.on("message", (message: unknown) => {
        if (!isListening(message)) return;
        listening = true;
        this.logger.info("worker listening", { worker: worker.process.pid });
        resolve(message);
      });
      worker.on("exit", (code, signal) => {
        this.workers.delete(worker);
        if (!listening) reject(new Error(`a worker exited while starting (${how(code, signal)}); its error is above`));
        this.exited(worker, code, signal);
      });
    });
  }

  private exited(worker: Worker, code: number | null, signal: string | null): void {
    if (this.stopSignal) {
      if (code !== 0 && code !== 130) this.failure ??= new Error(`worker ${worker.process.pid} exited with ${how(code, signal)} while stopping`);
      if (this.workers.size === 0) this.allExited();
      return;
    }
    if (this.starting) return; // the start-up loop hears of it through fork()
    const now = Date.now();
    this.crashes = [...this.crashes.filter((at) => now - at < CRASH_WINDOW_MS), now];
    if (this.crashes.length >= MAX_CRASHES) {
      this.failure = new Error(`${MAX_CRASHES} worker crashes within ${CRASH_WINDOW_MS / 1000} s: giving up (see the errors above)`);
      this.logger.error(this.failure.message);
      this.stop("SIGINT");
      return;
    }
    const delay = Math.min(MAX_RESTART_DELAY_MS, FIRST_RESTART_DELAY_MS * 2 ** (this.crashes.length - 1));
    this.logger.warn(`worker ${worker.process.pid} exited (${how(code, signal)}); starting another in ${delay} ms`);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      // A replacement that dies while starting counts as a crash through exited().
      this.fork().catch(() => undefined);
    }, delay);
  }

  /** Passes a signal on to every worker; a second one exits at once, as a lone process does. */
  private stop(signal: NodeJS.Signals): void {
    const message: StopMessage = { type: "stop", signal };
    if (this.stopSignal) {
      this.logger.warn(`second ${signal}: exiting without waiting`);
      for (const worker of this.workers) worker.process.kill("SIGKILL");
      process.exit(130);
    }
    this.stopSignal = signal;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    for (const worker of this.workers) if (worker.isConnected()) worker.send(message);
    if (this.workers.size === 0) this.allExited();
  }
}
