import { auditableUrl, bulkReplayTarget, notFoundMessage, planReplay, REPLAY_TARGETS, safeText, UserError, uuidv7, type Logger, type ReplayTargetName } from "@rehook/core";
import {
  BULK_REPLAY_JOB,
  countBulkReplayScope,
  countOwnedEvents,
  findOwnedEndpoint,
  listDestinationsOf,
  findOwnedReplayJob,
  findReplayJob,
  insertReplayJobIfRoom,
  replaySourcesPage,
  raiseAlerts,
  updateReplayJob,
  type JobHandler,
  type JobVerdict,
  type ReplayJob,
  type ReplayProgress,
  type ReplaySourceRow,
} from "@rehook/db";
import { z } from "zod";
import type { ServiceContext } from "./context.js";
import { checkedReplayTarget, sendReplay } from "./replays.js";
import { parseInput } from "./validation.js";
import { recordAudit, type AuditedBy } from "./audit.js";

/** A bulk replay: what it replays, where to, and how far it got. */
export interface ReplayJobView {
  id: string;
  endpointId: string;
  environment: string;
  customUrl: string | null;
  /** Which of the endpoint's destinations each event goes to: one (destinationId), the ones it matched, or its failed ones; null for a custom URL. */
  target: "destination" | "matched" | "failed" | null;
  destinationId: string | null;
  /** The status of the events it replays (null: every event). */
  statusFilter: string | null;
  state: "running" | "finished" | "interrupted";
  total: number;
  done: number;
  delivered: number;
  failed: number;
  error: string | null;
  createdAt: Date;
  finishedAt: Date | null;
}

function jobView(job: ReplayJob): ReplayJobView {
  return {
    id: job.id,
    endpointId: job.endpoint.id,
    environment: job.environment,
    customUrl: job.customUrl,
    target: job.target,
    destinationId: job.destinationId,
    statusFilter: job.statusFilter,
    state: job.state as ReplayJobView["state"],
    total: job.total,
    done: job.done,
    delivered: job.delivered,
    failed: job.failed,
    error: job.error,
    createdAt: job.createdAt,
    finishedAt: job.finishedAt,
  };
}

const bulkInput = z.object({
  endpointId: z.string().uuid("endpointId must be an endpoint id"),
  environment: z.enum(REPLAY_TARGETS, { message: "bulk replays go to one of the endpoint's destinations (original), each event's matched or failed destinations, or a custom URL" }).optional(),
  destinationId: z.string().max(100).nullish(),
  customUrl: safeText().nullish(),
  status: z.enum(["captured", "pending", "delivered", "failed"]).nullable().default("failed"),
});

/** The plan's target for a job: its destination target, or its environment (jobs from before targets: original or custom). */
function jobTarget(job: ReplayJob): ReplayTargetName {
  if (job.target === "destination") return "original";
  if (job.target) return job.target;
  return job.environment === "custom" ? "custom" : "original";
}

/** Rows per read of events to replay; each read is also cut at BODY_BYTES_PER_READ of bodies. */
const PAGE = 100;
/** Bulk replays one team may have running at once (on all instances together). */
export const MAX_RUNNING_BULK_REPLAYS_PER_TEAM = 2;
/** Bulk replays one instance runs at once (each sends a few requests at a time). */
const JOBS_PER_INSTANCE = 4;

export interface BulkReplayDeps extends Pick<ServiceContext, "orm" | "outbound" | "addressPolicy"> {
  /** Asks the job runner to look for due jobs now, so a replay starts at once. */
  wakeJobs?: () => void;
}

/**
 * Bulk replays are jobs of the job runner: started here (the replay row and its job commit
 * together), run on whichever instance claims the job, a few requests at a time (so one job
 * cannot crowd out live forwarding in the worker pool), with progress and cursor stored
 * after every page. An instance that stops hands the job back and another (or the same,
 * restarted) resumes after the last event stored as done; a crash resumes the same way once
 * the lease expires, replaying at most the page that was under way again.
 */
export class BulkReplays {
  constructor(
    private readonly deps: BulkReplayDeps,
    private readonly logger: Logger,
    private readonly concurrency = 4,
    private readonly maxRunningPerTeam = MAX_RUNNING_BULK_REPLAYS_PER_TEAM,
  ) {}

  /**
   * Starts replaying the endpoint's events that match the filter (failed ones by default): to
   * one of its destinations (original: its only one, or destinationId), to each event's
   * matched or failed destinations, or to a custom URL.
   */
  async start(input: {
    teamId: string;
    userId: string;
    by?: AuditedBy;
    endpointId: string;
    environment?: string | null;
    destinationId?: string | null;
    customUrl?: string | null;
    status?: string | null;
  }): Promise<ReplayJobView> {
    const { endpointId, environment: asked, destinationId: askedDestination, customUrl, status } = parseInput(bulkInput, {
      endpointId: input.endpointId,
      environment: input.environment ?? undefined,
      destinationId: input.destinationId,
      customUrl: input.customUrl,
      status: input.status === undefined ? "failed" : input.status,
    });
    const em = this.deps.orm.em.fork();
    const endpoint = await findOwnedEndpoint(em, input.teamId, { id: endpointId });
    if (!endpoint) throw new UserError("not_found", notFoundMessage("endpoint", endpointId));
    const destinations = await listDestinationsOf(em, endpointId);
    const choice = bulkReplayTarget({ target: asked, destinationId: askedDestination, customUrl }, destinations);
    if (!choice.ok) throw new UserError(choice.kind === "invalid" ? "validation_failed" : "unprocessable", choice.reason);
    const { environment, target, destinationId } = choice;
    // One destination or a URL is the same host for every event: checked once, before anything is sent.
    if (target === null || target === "destination") {
      const url = target === null ? null : destinations.find((destination) => destination.id === destinationId)!.url;
      await checkedReplayTarget(this.deps, { destinationUrl: url, stagingHost: null, path: "", query: "" }, environment, customUrl);
    }
    const upTo = uuidv7();
    const total =
      target === "matched" || target === "failed"
        ? await countBulkReplayScope(em, input.teamId, endpointId, { status, target, before: upTo })
        : await countOwnedEvents(em, input.teamId, { endpointId, status });
    const job = await em.transactional(async (tx) => {
      const inserted = await insertReplayJobIfRoom(
        tx,
        {
          id: uuidv7(),
          teamId: input.teamId,
          userId: input.userId,
          endpointId,
          environment,
          customUrl: environment === "custom" ? (customUrl ?? null) : null,
          statusFilter: status,
          target,
          destinationId,
          total,
          // Only events that exist now: new failures are not chased forever.
          upTo,
        },
        this.maxRunningPerTeam,
      );
      if (inserted) {
        await recordAudit(tx, input.by, {
          teamId: input.teamId,
          action: "replay_job.create",
          target: { type: "replay_job", id: inserted.id, name: endpoint.name },
          changes: {
            endpoint_id: endpointId,
            environment,
            ...(target ? { target } : {}),
            ...(destinationId ? { destination_id: destinationId } : {}),
            custom_url: auditableUrl(inserted.customUrl),
            status,
            total: inserted.total,
          },
        });
      }
      return inserted;
    });
    if (!job) {
      throw new UserError("rate_limited", `${this.maxRunningPerTeam} bulk replays are already running: wait for one to finish, then start this one`);
    }
    this.deps.wakeJobs?.();
    return jobView(job);
  }

  async get(input: { teamId: string; jobId: string }): Promise<ReplayJobView> {
    const job = await findOwnedReplayJob(this.deps.orm.em.fork(), input.teamId, input.jobId);
    if (!job) throw new UserError("not_found", `There is no bulk replay with the id ${input.jobId}. Start a new one from the endpoint.`);
    return jobView(job);
  }

  /** The job runner's handler for bulk replays. */
  handler(): JobHandler {
    return {
      kind: BULK_REPLAY_JOB,
      concurrency: JOBS_PER_INSTANCE,
      leaseMs: 60_000,
      maxAttempts: 5,
      run: (job) => this.run(job.key, job.signal),
      gaveUp: async (job) => {
        const row = await findReplayJob(this.deps.orm.em.fork(), job.key);
        if (!row) return;
        const progress = { done: row.done, delivered: row.delivered, failed: row.failed };
        await updateReplayJob(this.deps.orm.em.fork(), row.id, { ...progress, state: "interrupted", error: "the replay stopped on an internal error" });
      },
    };
  }

  private async run(jobId: string, signal: AbortSignal): Promise<JobVerdict> {
    const em = () => this.deps.orm.em.fork();
    const job = await findReplayJob(em(), jobId);
    if (!job || job.state !== "running") return { kind: "done" };
    const teamId = job.team.id;
    const userId = job.createdBy?.id ?? null;
    const progress: ReplayProgress = { done: job.done, delivered: job.delivered, failed: job.failed };
    const upTo = job.upTo ?? uuidv7();
    let after = job.afterId;
    while (!signal.aborted) {
      // A page is cut by body bytes too: bodies of up to 10 MiB are held until sent.
      const inScope = await replaySourcesPage(em(), teamId, job.endpoint.id, { status: job.statusFilter, target: job.target, after, before: upTo, limit: PAGE });
      if (inScope.length === 0) break;
      let next = 0;
      const lane = async () => {
        // Each lane ends the send it took before it looks at the signal: everything before `next` is done.
        while (!signal.aborted && next < inScope.length) {
          const source = inScope[next++]!;
          if (await this.replayOne(job, userId, source)) progress.delivered += 1;
          else progress.failed += 1;
          progress.done += 1;
        }
      };
      await Promise.all(Array.from({ length: this.concurrency }, lane));
      if (next === 0) break;
      after = inScope[next - 1]!.id;
      await updateReplayJob(em(), job.id, { ...progress, afterId: after });
    }
    if (signal.aborted) return { kind: "stopped" };
    // Finished, and the team's "bulk replay finished" alerts raised, together.
    await em().transactional(async (tx) => {
      await updateReplayJob(tx, job.id, { ...progress, state: "finished" });
      await raiseAlerts(tx, { teamId, kind: "bulk_replay_finished", endpointId: job.endpoint.id, detail: { ...progress, jobId: job.id } });
    });
    return { kind: "done" };
  }

  /**
   * Replays one event to each URL its plan names (one, or one per matched or failed
   * destination); answers whether every attempt delivered (a failure of any kind is counted,
   * logged and passed). A delivered attempt to a destination resolves its failed delivery.
   */
  private async replayOne(job: ReplayJob, userId: string | null, source: ReplaySourceRow): Promise<boolean> {
    try {
      // No lookup per event: the agent checks every connection it makes.
      const plan = planReplay({ target: jobTarget(job), destinationId: job.destinationId, customUrl: job.customUrl }, source);
      if (!plan.ok) throw new UserError("unprocessable", plan.reason);
      const attempts = await Promise.all(
        plan.sends.map((send) => sendReplay(this.deps, source, { userId, environment: send.environment, url: send.url, destinationId: send.destinationId, jobId: job.id })),
      );
      return attempts.every((attempt) => attempt.status === "delivered");
    } catch (error) {
      this.logger.warn("bulk replay: an event could not be replayed", { job: job.id, event: source.id, error: String(error) });
      return false;
    }
  }
}
