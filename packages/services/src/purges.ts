import { ALERT_WATCH_JOB } from "./alert-watch.js";
import { SEARCH_INDEX_JOB, uuidv7Floor, type Logger } from "@rehook/core";
import {
  compactEventActivity,
  compactEventCounts,
  deleteExpiredSessions,
  dropEventPartition,
  endpointRetentions,
  deleteExpiredDedupKeys,
  deleteAgedAuditEntries,
  ENDPOINT_PURGE_JOB,
  forgetEndpointDedupKeys,
  enqueueJob,
  ensureEventPartitions,
  eventPartitions,
  forgetEndpointActivity,
  forgetEndpointCounts,
  longestRetentionDays,
  purgeDefaultPartition,
  purgeEndpointEvents,
  type JobHandler,
  type Pool,
} from "@rehook/db";

/** The job runner's kinds for the recurring upkeep (one job each). */
export const SESSION_PURGE_JOB = "purge_expired_sessions";
export const RETENTION_JOB = "events_retention";
export const COUNTS_COMPACTION_JOB = "compact_event_counts";
export const ACTIVITY_COMPACTION_JOB = "compact_event_minutes";
export const DEDUP_PURGE_JOB = "purge_expired_dedup_keys";
export const AUDIT_RETENTION_JOB = "audit_log_retention";

/** Rows deleted per statement by every purge (sessions, events): each statement's locks stay short. */
export const PURGE_BATCH_ROWS = 5_000;
/** Batches one retention run deletes before it lets other jobs run (it continues at once after). */
const RETENTION_BATCHES_PER_RUN = 40;
/** How often retention runs (and partitions ahead are made sure of). */
const RETENTION_EVERY_MS = 10 * 60_000;
/** How often dedup keys past their window are deleted. */
const DEDUP_PURGE_EVERY_MS = 10 * 60_000;
/** How often audit entries past AUDIT_RETENTION_DAYS are deleted. */
const AUDIT_RETENTION_EVERY_MS = 60 * 60_000;
/** How often the expired-session purge runs. */
const SESSION_PURGE_EVERY_MS = 60 * 60_000;
/** How often count deltas are folded. */
const COUNTS_COMPACTION_EVERY_MS = 10_000;
/** How often the charts' per-minute deltas are folded (a minute's deltas stop arriving once it is over). */
const ACTIVITY_COMPACTION_EVERY_MS = 30_000;
/** Groups folded, or expired rows deleted, per statement of the charts' compaction. */
const ACTIVITY_COMPACTION_ROWS = 5_000;
const DAY_MS = 86_400_000;

/** Expired sessions are refused at sign-in already; this removes their rows. */
export function sessionPurge(pool: Pool): JobHandler {
  return {
    kind: SESSION_PURGE_JOB,
    async run(job) {
      while (!job.signal.aborted && (await deleteExpiredSessions(pool, PURGE_BATCH_ROWS)) === PURGE_BATCH_ROWS);
      return job.signal.aborted ? { kind: "stopped" } : { kind: "later", inMs: SESSION_PURGE_EVERY_MS };
    },
  };
}

/** Dedup keys past their window (an endpoint's window is at most 7 days): deleted in bounded batches. */
export function dedupKeyPurge(pool: Pool): JobHandler {
  return {
    kind: DEDUP_PURGE_JOB,
    async run(job) {
      while (!job.signal.aborted && (await deleteExpiredDedupKeys(pool, PURGE_BATCH_ROWS)) === PURGE_BATCH_ROWS);
      return job.signal.aborted ? { kind: "stopped" } : { kind: "later", inMs: DEDUP_PURGE_EVERY_MS };
    },
  };
}

/** Audit entries older than AUDIT_RETENTION_DAYS (0: kept for ever), deleted in bounded batches. */
export function auditRetention(pool: Pool, days: number): JobHandler {
  return {
    kind: AUDIT_RETENTION_JOB,
    async run(job) {
      while (days > 0 && !job.signal.aborted && (await deleteAgedAuditEntries(pool, days, PURGE_BATCH_ROWS)) === PURGE_BATCH_ROWS);
      return job.signal.aborted ? { kind: "stopped" } : { kind: "later", inMs: AUDIT_RETENTION_EVERY_MS };
    },
  };
}

/** A deleted endpoint's events, purged in batches; its count, chart and dedup rows go last. */
export function endpointPurge(pool: Pool): JobHandler {
  return {
    kind: ENDPOINT_PURGE_JOB,
    concurrency: 2,
    async run(job) {
      while (!job.signal.aborted) {
        if ((await purgeEndpointEvents(pool, job.key, PURGE_BATCH_ROWS)) < PURGE_BATCH_ROWS) {
          await forgetEndpointCounts(pool, job.key);
          await forgetEndpointActivity(pool, job.key);
          await forgetEndpointDedupKeys(pool, job.key);
          return { kind: "done" };
        }
      }
      return { kind: "stopped" };
    },
  };
}

/** Folds event_counts' delta rows, so totals read a handful of rows. */
export function countsCompaction(pool: Pool): JobHandler {
  return {
    kind: COUNTS_COMPACTION_JOB,
    async run() {
      await compactEventCounts(pool);
      return { kind: "later", inMs: COUNTS_COMPACTION_EVERY_MS };
    },
  };
}

/**
 * Folds the charts' per-minute deltas (event_minutes, latency_minutes) of the minutes just
 * past into one row each, and deletes minutes older than ACTIVITY_KEPT_DAYS; again at once
 * while a statement hit its limit.
 */
export function activityCompaction(pool: Pool, now: () => number = Date.now): JobHandler {
  return {
    kind: ACTIVITY_COMPACTION_JOB,
    async run() {
      const { more } = await compactEventActivity(pool, now(), ACTIVITY_COMPACTION_ROWS);
      return { kind: "later", inMs: more ? 0 : ACTIVITY_COMPACTION_EVERY_MS };
    },
  };
}

export interface RetentionOptions {
  pool: Pool;
  logger: Logger;
  /** RETENTION_DAYS: an endpoint without its own retention keeps events this long (0: for ever). */
  defaultDays: number;
  /** The clock (tests move it). */
  now?: () => number;
}

/**
 * Ages events out. Partitions for the days ahead are made sure of first. A day partition
 * that every endpoint's retention has passed is dropped whole (its attempts first); an
 * endpoint that keeps events for less than the longest retention loses its expired events
 * in batches of PURGE_BATCH_ROWS. Runs every ten minutes, and again at once while there is
 * more to delete.
 */
export function eventRetention(options: RetentionOptions): JobHandler {
  const now = options.now ?? Date.now;
  return {
    kind: RETENTION_JOB,
    leaseMs: 5 * 60_000,
    async run(job) {
      const at = now();
      const partitions = await ensureEventPartitions(options.pool, at);
      for (const skipped of partitions.skipped) options.logger.warn("could not create an events partition", skipped);
      const longest = await longestRetentionDays(options.pool, options.defaultDays);
      if (longest !== null) {
        const horizon = uuidv7Floor(at - longest * DAY_MS);
        for (const partition of await eventPartitions(options.pool)) {
          if (job.signal.aborted) return { kind: "stopped" };
          if (partition.to > horizon) break;
          await dropEventPartition(options.pool, partition);
          options.logger.info("dropped an expired events partition", { partition: partition.name });
        }
        // Events no day partition holds (older than the partitions, or from a clock far ahead) go by batch.
        if ((await purgeDefaultPartition(options.pool, horizon, PURGE_BATCH_ROWS)) === PURGE_BATCH_ROWS) return { kind: "later", inMs: 0 };
      }
      let batches = 0;
      for (const { endpointId, days } of await endpointRetentions(options.pool, options.defaultDays)) {
        // Kept as long as the longest: its expired days go with their partitions.
        if (longest !== null && days >= longest) continue;
        const before = uuidv7Floor(at - days * DAY_MS);
        while (batches < RETENTION_BATCHES_PER_RUN) {
          if (job.signal.aborted) return { kind: "stopped" };
          batches += 1;
          if ((await purgeEndpointEvents(options.pool, endpointId, PURGE_BATCH_ROWS, before)) < PURGE_BATCH_ROWS) break;
        }
        if (batches >= RETENTION_BATCHES_PER_RUN) return { kind: "later", inMs: 0 };
      }
      return { kind: "later", inMs: RETENTION_EVERY_MS };
    },
  };
}

/** Makes sure the recurring upkeep jobs exist (at start; an existing one keeps its schedule). */
export async function scheduleUpkeep(pool: Pool): Promise<void> {
  for (const kind of [SESSION_PURGE_JOB, RETENTION_JOB, COUNTS_COMPACTION_JOB, ACTIVITY_COMPACTION_JOB, SEARCH_INDEX_JOB, DEDUP_PURGE_JOB, AUDIT_RETENTION_JOB, ALERT_WATCH_JOB]) {
    await enqueueJob(pool, { kind, key: "all" });
  }
}
