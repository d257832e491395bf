import { deleteExpiredSessions, enqueueJob, type JobHandler, type Pool } from "@rehook/db";

/** The job runner's kind for the expired-session purge; one job, recurring. */
export const SESSION_PURGE_JOB = "purge_expired_sessions";
/** Expired sessions deleted per statement. */
const SESSIONS_PER_BATCH = 5_000;
/** How often the purge runs. */
const SESSION_PURGE_EVERY_MS = 60 * 60_000;

/**
 * Expired sessions are refused at sign-in already; this removes their rows, in bounded
 * batches, once an hour on whichever instance claims the job.
 */
export function sessionPurge(pool: Pool): JobHandler {
  return {
    kind: SESSION_PURGE_JOB,
    async run(job) {
      while (!job.signal.aborted && (await deleteExpiredSessions(pool, SESSIONS_PER_BATCH)) === SESSIONS_PER_BATCH);
      return job.signal.aborted ? { kind: "stopped" } : { kind: "later", inMs: SESSION_PURGE_EVERY_MS };
    },
  };
}

/** Makes sure the recurring purges exist (at start; an existing one keeps its schedule). */
export async function schedulePurges(pool: Pool): Promise<void> {
  await enqueueJob(pool, { kind: SESSION_PURGE_JOB, key: "all" });
}
