import { replayTarget, UserError, uuidv7, type Logger } from "@rehook/core";
import {
  countEvents,
  findOwnedEndpoint,
  findOwnedReplayJob,
  insertReplayJobIfRoom,
  markStaleReplayJobs,
  replaySourcesPage,
  updateReplayJob,
  type ReplayJob,
} from "@rehook/db";
import { z } from "zod";
import type { ServiceContext } from "./context.js";
import { checkedReplayTarget, sendReplay } from "./replays.js";
import { parseInput } from "./validation.js";

export interface ReplayJobView {
  id: string;
  endpoint_id: string;
  environment: string;
  custom_url: string | null;
  status_filter: string | null;
  state: "running" | "finished" | "interrupted";
  total: number;
  done: number;
  delivered: number;
  failed: number;
  error: string | null;
  created_at: string;
  finished_at: string | null;
}

function jobView(job: ReplayJob): ReplayJobView {
  return {
    id: job.id,
    endpoint_id: job.endpoint.id,
    environment: job.environment,
    custom_url: job.customUrl,
    status_filter: job.statusFilter,
    state: job.state as ReplayJobView["state"],
    total: job.total,
    done: job.done,
    delivered: job.delivered,
    failed: job.failed,
    error: job.error,
    created_at: job.createdAt.toISOString(),
    finished_at: job.finishedAt?.toISOString() ?? null,
  };
}

const bulkInput = z.object({
  endpointId: z.string().uuid("endpointId must be an endpoint id"),
  environment: z.enum(["original", "custom"], { message: "bulk replays go to the original destination or a custom URL" }),
  customUrl: z.string().nullish(),
  status: z.enum(["captured", "pending", "delivered", "failed"]).nullable().default("failed"),
});

/** How often a running job proves it is alive; a job silent for STALE_MS was interrupted. */
const HEARTBEAT_MS = 5_000;
const STALE_MS = 60_000;
/** Rows per read of events to replay; each read is also cut at BODY_BYTES_PER_READ of bodies. */
const PAGE = 100;
/** Bulk replays one user may have running at once (on all instances together). */
export const MAX_RUNNING_BULK_REPLAYS_PER_USER = 2;

/**
 * Bulk replays run in the background of the instance that started them, a few requests at
 * a time (so one job cannot crowd out live forwarding in the worker pool), with their
 * progress in PostgreSQL where any instance can read it.
 */
export class BulkReplays {
  private readonly running = new Map<string, { stop: AbortController; done: Promise<void> }>();

  constructor(
    private readonly ctx: Pick<ServiceContext, "orm" | "outbound" | "addressPolicy">,
    private readonly logger: Logger,
    private readonly concurrency = 4,
    private readonly maxRunningPerUser = MAX_RUNNING_BULK_REPLAYS_PER_USER,
  ) {}

  /** Starts replaying the endpoint's events that match the filter (failed ones by default). */
  async start(input: { userId: string; endpointId: string; environment: string; customUrl?: string | null; status?: string | null }): Promise<ReplayJobView> {
    const { endpointId, environment, customUrl, status } = parseInput(bulkInput, {
      endpointId: input.endpointId,
      environment: input.environment,
      customUrl: input.customUrl,
      status: input.status === undefined ? "failed" : input.status,
    });
    const em = this.ctx.orm.em.fork();
    const endpoint = await findOwnedEndpoint(em, input.userId, { id: endpointId });
    if (!endpoint) throw new UserError("not_found", `no endpoint with id ${endpointId}`);
    // The target is the same host for every event: check it once, before anything is sent.
    await checkedReplayTarget(this.ctx, { destinationUrl: endpoint.destinationUrl, stagingHost: null, path: "", query: "" }, environment, customUrl);
    // A job whose instance stopped must not hold one of the user's places.
    await markStaleReplayJobs(em, STALE_MS);
    const job = await insertReplayJobIfRoom(
      em,
      {
        id: uuidv7(),
        userId: input.userId,
        endpointId,
        environment,
        customUrl: customUrl ?? null,
        statusFilter: status,
        total: await countEvents(em, endpointId, status),
      },
      this.maxRunningPerUser,
    );
    if (!job) {
      throw new UserError("rate_limited", `${this.maxRunningPerUser} bulk replays are already running: wait for one to finish, then start this one`);
    }
    const stop = new AbortController();
    const done = this.run(job, input.userId, stop.signal).finally(() => this.running.delete(job.id));
    this.running.set(job.id, { stop, done });
    return jobView(job);
  }

  async get(input: { userId: string; jobId: string }): Promise<ReplayJobView> {
    const em = this.ctx.orm.em.fork();
    await markStaleReplayJobs(em, STALE_MS);
    const job = await findOwnedReplayJob(em, input.userId, input.jobId);
    if (!job) throw new UserError("not_found", `no bulk replay with id ${input.jobId}`);
    return jobView(job);
  }

  /** Stops the jobs of this instance (shutdown): what was sent is recorded, the rest is left. */
  async stop(): Promise<void> {
    for (const job of this.running.values()) job.stop.abort();
    await Promise.allSettled([...this.running.values()].map((job) => job.done));
  }

  private async run(job: ReplayJob, userId: string, signal: AbortSignal): Promise<void> {
    const progress = { done: 0, delivered: 0, failed: 0 };
    const em = () => this.ctx.orm.em.fork();
    const heartbeat = setInterval(() => void updateReplayJob(em(), job.id, progress).catch(() => undefined), HEARTBEAT_MS);
    // Only events that existed when the job started: new failures are not chased forever.
    const upTo = uuidv7();
    let after: string | null = null;
    try {
      while (!signal.aborted) {
        // A page is cut by body bytes too: bodies of up to 10 MiB are held until sent.
        const inScope = await replaySourcesPage(em(), userId, job.endpoint.id, { status: job.statusFilter, after, before: upTo, limit: PAGE });
        if (inScope.length === 0) break;
        after = inScope[inScope.length - 1]!.id;
        let next = 0;
        const lane = async () => {
          while (!signal.aborted && next < inScope.length) {
            const source = inScope[next++]!;
            try {
              // Same host as checked at the start (no lookup per event); the agent checks every connection.
              const target = replayTarget(job.environment as "original" | "custom", source, job.customUrl);
              if (!target.ok) throw new UserError("unprocessable", target.reason);
              const url = target.url;
              const attempt = await sendReplay(this.ctx, source, { userId, environment: job.environment as "original" | "custom", url, jobId: job.id });
              if (attempt.status === "delivered") progress.delivered += 1;
              else progress.failed += 1;
            } catch (error) {
              progress.failed += 1;
              this.logger.warn("bulk replay: an event could not be replayed", { job: job.id, event: source.id, error: String(error) });
            }
            progress.done += 1;
          }
        };
        await Promise.all(Array.from({ length: this.concurrency }, lane));
        await updateReplayJob(em(), job.id, progress);
      }
      await updateReplayJob(em(), job.id, signal.aborted ? { ...progress, state: "interrupted", error: "the server stopped before the end" } : { ...progress, state: "finished" });
    } catch (error) {
      this.logger.error("bulk replay failed", { job: job.id, error: String(error) });
      await updateReplayJob(em(), job.id, { ...progress, state: "interrupted", error: "the replay stopped on an internal error" }).catch(() => undefined);
    } finally {
      clearInterval(heartbeat);
    }
  }
}
