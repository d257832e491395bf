import { performance } from "node:perf_hooks";
import { SEARCH_INDEX_HOURS, SEARCH_INDEX_JOB, SEARCH_INDEX_LAG_MS, uuidv7Floor, type Logger } from "@rehook/core";
import { indexNextEvents, pruneSearchIndex, searchIndexAvailable, startSearchIndex, type JobHandler, type Pool } from "@rehook/db";

/** Events copied per statement. */
export const SEARCH_INDEX_BATCH_ROWS = 1_000;
/** Rows of days past SEARCH_INDEX_HOURS deleted per statement. */
const PRUNE_BATCH_ROWS = 5_000;
/**
 * A run copies batches for about this long, then waits REST_FACTOR times as long before the
 * next: while catching up (after an upgrade, or a burst of captures) the job takes at most a
 * quarter of one database connection's time, so capture keeps its throughput. A trigram entry
 * costs the database far more than the capture of its row; were the job to keep pace with
 * capture at full load it would halve it.
 */
const RUN_BUDGET_MS = 250;
const REST_FACTOR = 3;
/** The wait between runs once the index has caught up. */
const CAUGHT_UP_EVERY_MS = 5_000;
/** How often a server without pg_trgm looks again (an operator may install it). */
const UNAVAILABLE_EVERY_MS = 60 * 60_000;
const HOUR_MS = 3_600_000;

export interface SearchIndexingOptions {
  pool: Pool;
  logger: Logger;
  /** The clock (tests move it). */
  now?: () => number;
}

/** Keeps the search index (db's event-search-index.ts) filled up to SEARCH_INDEX_LAG_MS ago and pruned past SEARCH_INDEX_HOURS. */
export function searchIndexing(options: SearchIndexingOptions): JobHandler {
  const now = options.now ?? Date.now;
  let warned = false;
  return {
    kind: SEARCH_INDEX_JOB,
    async run(job) {
      if (!(await searchIndexAvailable(options.pool))) {
        if (!warned) options.logger.warn("pg_trgm is not installed: event search reads bodies (install PostgreSQL's contrib package and restart)");
        warned = true;
        return { kind: "later", inMs: UNAVAILABLE_EVERY_MS };
      }
      const at = now();
      const horizon = uuidv7Floor(at - SEARCH_INDEX_HOURS * HOUR_MS);
      const upTo = uuidv7Floor(at - SEARCH_INDEX_LAG_MS);
      const started = performance.now();
      const spent = () => performance.now() - started;
      await startSearchIndex(options.pool, horizon);
      let behind = false;
      while (!job.signal.aborted && (behind = (await pruneSearchIndex(options.pool, horizon, PRUNE_BATCH_ROWS)) === PRUNE_BATCH_ROWS) && spent() < RUN_BUDGET_MS);
      while (!job.signal.aborted && spent() < RUN_BUDGET_MS && (behind = (await indexNextEvents(options.pool, upTo, SEARCH_INDEX_BATCH_ROWS)).more));
      if (job.signal.aborted) return { kind: "stopped" };
      return { kind: "later", inMs: behind ? Math.ceil(REST_FACTOR * spent()) : CAUGHT_UP_EVERY_MS };
    },
  };
}
