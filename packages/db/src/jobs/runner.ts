import type { Logger } from "@rehook/core";
import type { Pool } from "../pool.js";
import { Poller } from "./poller.js";
import { claimJobs, renewJobLeases, settleJob, type ClaimedJob, type JobSettlement } from "./queue.js";

/** A job as its handler sees it. */
export interface RunningJob {
  id: string;
  key: string;
  payload: unknown;
  /** 1 for the first run since the job's last success. */
  attempt: number;
  /** Aborted when the instance stops or the lease was lost: stop soon and answer "stopped". */
  signal: AbortSignal;
}

export type JobVerdict =
  /** Finished: the job ends (it runs again after `rerunInMs` if it was enqueued again meanwhile). */
  | { kind: "done"; rerunInMs?: number }
  /** Finished for now: run again after `inMs`. */
  | { kind: "later"; inMs: number }
  /** Stopped before the end because `signal` was aborted: handed back for any instance to resume. */
  | { kind: "stopped" };

export interface JobHandler {
  kind: string;
  /** Jobs of this kind run at once on this instance (default 1). */
  concurrency?: number;
  /** The lease of a claim, renewed while the job runs (default 60 s): how soon a crashed instance's job resumes elsewhere. */
  leaseMs?: number;
  /** Failed runs in a row before the job is given up (default 5). */
  maxAttempts?: number;
  run(job: RunningJob): Promise<JobVerdict>;
  /** Called once when the last attempt failed, before the job is deleted. */
  gaveUp?(job: RunningJob, error: unknown): Promise<void>;
}

export interface JobRunnerOptions {
  db: Pool;
  logger: Logger;
  /** How often due jobs are looked for when nobody wakes the runner. */
  pollMs?: number;
  /** How often the leases of running jobs are extended. */
  renewMs?: number;
}

/** The wait after a failed run: 1 s, doubling, at most 5 minutes. */
export function failedRunDelay(attempt: number): number {
  return Math.min(1_000 * 2 ** Math.max(0, attempt - 1), 300_000);
}

interface Running {
  job: ClaimedJob;
  leaseMs: number;
  abort: AbortController;
  done: Promise<void>;
}

/**
 * Runs background jobs stored in PostgreSQL (the jobs table): claims due ones with a lease
 * and SKIP LOCKED (several instances share the work, each job runs on one at a time), runs
 * them through their kind's handler within its concurrency, renews their leases while they
 * run, and stores how each ended. A crashed instance's jobs resume elsewhere when their
 * leases expire; a stopping one hands its jobs back at once.
 */
export class JobRunner {
  private readonly handlers = new Map<string, Required<Omit<JobHandler, "gaveUp">> & Pick<JobHandler, "gaveUp">>();
  private readonly running = new Map<string, Running>();
  private readonly poller: Poller;
  private renewTimer: NodeJS.Timeout | undefined;
  private stopped = false;
  private aborted = false;

  constructor(private readonly options: JobRunnerOptions) {
    this.poller = new Poller(() => this.claim(), options.pollMs ?? 500);
  }

  register(handler: JobHandler): void {
    this.handlers.set(handler.kind, { concurrency: 1, leaseMs: 60_000, maxAttempts: 5, ...handler });
  }

  start(): void {
    this.poller.start();
    this.renewTimer = setInterval(() => void this.renew(), this.options.renewMs ?? 10_000);
  }

  /** Looks for due jobs now (after an enqueue on this instance, instead of at the next poll). */
  wake(): void {
    this.poller.wake();
  }

  /** Jobs running here (tests, diagnostics). */
  runningCount(kind?: string): number {
    return [...this.running.values()].filter((running) => kind === undefined || running.job.kind === kind).length;
  }

  /** The running jobs have been told to stop (tests, diagnostics). */
  get stopping(): boolean {
    return this.aborted;
  }

  /** Stops claiming, asks the running jobs to stop, and hands back what did not finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.poller.stop();
    clearInterval(this.renewTimer);
    for (const running of this.running.values()) running.abort.abort(new Error("the instance is stopping"));
    this.aborted = true;
    await Promise.allSettled([...this.running.values()].map((running) => running.done));
  }

  /** Claims what the free slots allow; answers whether a kind filled its slots (more may be due). */
  private async claim(): Promise<boolean> {
    if (this.stopped) return false;
    const requests = [...this.handlers.values()].map((handler) => ({
      kind: handler.kind,
      slots: handler.concurrency - this.runningCount(handler.kind),
      leaseMs: handler.leaseMs,
    }));
    let claimed: ClaimedJob[];
    try {
      claimed = await claimJobs(this.options.db, requests);
    } catch (error) {
      this.options.logger.warn("could not claim jobs", { error: String(error) });
      return false;
    }
    for (const job of claimed) this.begin(job);
    return requests.some((request) => request.slots > 0 && claimed.filter((job) => job.kind === request.kind).length >= request.slots);
  }

  private begin(job: ClaimedJob): void {
    const handler = this.handlers.get(job.kind)!;
    const abort = new AbortController();
    const running: Running = { job, leaseMs: handler.leaseMs, abort, done: Promise.resolve() };
    this.running.set(job.id, running);
    running.done = this.execute(handler, job, abort.signal).finally(() => {
      this.running.delete(job.id);
      // A slot is free: what waited for it need not wait for the next poll.
      this.poller.wake();
    });
  }

  private async execute(handler: JobHandler & { maxAttempts: number }, job: ClaimedJob, signal: AbortSignal): Promise<void> {
    const context: RunningJob = { id: job.id, key: job.key, payload: job.payload, attempt: job.attempt, signal };
    let settlement: JobSettlement;
    try {
      const verdict = await handler.run(context);
      settlement =
        verdict.kind === "stopped" ? { kind: "handed_back" } : verdict.kind === "done" ? { kind: "done", rerunInMs: verdict.rerunInMs ?? 0 } : verdict;
    } catch (error) {
      settlement = await this.failure(handler, context, error);
    }
    try {
      await settleJob(this.options.db, job, settlement);
    } catch (error) {
      // Still leased: the lease expires and the job runs again then.
      this.options.logger.warn("could not store how a job ended", { kind: job.kind, key: job.key, error: String(error) });
    }
  }

  private async failure(handler: JobHandler & { maxAttempts: number }, job: RunningJob, error: unknown): Promise<JobSettlement> {
    if (job.signal.aborted) return { kind: "handed_back" };
    const reason = error instanceof Error ? error.message : String(error);
    if (job.attempt < handler.maxAttempts) {
      this.options.logger.warn("a job failed; it will run again", { kind: handler.kind, key: job.key, attempt: job.attempt, error: reason });
      return { kind: "failed", inMs: failedRunDelay(job.attempt), error: reason };
    }
    this.options.logger.error("a job failed for the last time and was given up", { kind: handler.kind, key: job.key, attempts: job.attempt, error: reason });
    await handler.gaveUp?.(job, error).catch((cause: unknown) => this.options.logger.error("a job's give-up step failed", { kind: handler.kind, error: String(cause) }));
    return { kind: "gave_up", error: reason };
  }

  /** Extends the running jobs' leases; a job whose lease was taken over is told to stop. */
  private async renew(): Promise<void> {
    const running = [...this.running.values()];
    if (running.length === 0) return;
    try {
      const held = await renewJobLeases(
        this.options.db,
        running.map(({ job, leaseMs }) => ({ id: job.id, attempt: job.attempt, leaseMs })),
      );
      for (const { job, abort } of running) {
        if (held.has(job.id) || !this.running.has(job.id)) continue;
        this.options.logger.warn("a job's lease was lost; it stops here", { kind: job.kind, key: job.key });
        abort.abort(new Error("lease lost"));
      }
    } catch (error) {
      this.options.logger.warn("could not renew job leases", { error: String(error) });
    }
  }
}
