import type { EntityManager } from "@mikro-orm/postgresql";
import { isUuid, LATENCY_BUCKETS } from "@rehook/core";
import type { Pool } from "../pool.js";

/** How long the per-minute rollups are kept: the longest chart (a week) and a day to spare. */
export const ACTIVITY_KEPT_DAYS = 8;
/** Minutes behind now whose deltas a fold looks at: deltas are only ever appended for the current minute. */
const FOLD_LOOKBACK_MINUTES = 15;

/** One bucket of a series as stored: the counts and the latency histogram (counts per LATENCY_BUCKET_BOUNDS_MS bucket). */
export interface ActivityBucketCounts {
  captured: number;
  delivered: number;
  failed: number;
  latencies: number[];
}

/*
 * The user's endpoints in scope (one, or all of them when $2 is null), then their rollup rows
 * in [$3, $4) summed per bucket of $5 ms counted from $3: an index range on (endpoint_id,
 * minute) per endpoint, never the events. Buckets without rows are left out (filled by the caller).
 */
const ACTIVITY = `
with scope as (
  select id from endpoints where team_id = ? and (?::uuid is null or id = ?::uuid)
),
counts as (
  select floor((extract(epoch from m.minute) * 1000 - ?::float8) / ?::float8)::int as i,
         sum(m.captured)::int as captured, sum(m.delivered)::int as delivered, sum(m.failed)::int as failed
  from scope s join event_minutes m on m.endpoint_id = s.id
  where m.minute >= to_timestamp(?::float8 / 1000) and m.minute < to_timestamp(?::float8 / 1000)
  group by 1
),
latencies as (
  select floor((extract(epoch from l.minute) * 1000 - ?::float8) / ?::float8)::int as i, l.bucket, sum(l.n)::int as n
  from scope s join latency_minutes l on l.endpoint_id = s.id
  where l.minute >= to_timestamp(?::float8 / 1000) and l.minute < to_timestamp(?::float8 / 1000)
  group by 1, 2
)
select (select count(*) from scope)::int as endpoints,
       (select coalesce(json_agg(c), '[]') from counts c) as counts,
       (select coalesce(json_agg(l), '[]') from latencies l) as latencies`;

export interface ActivityQuery {
  teamId: string;
  /** One of the user's endpoints; unset: all of them. */
  endpointId?: string | null;
  /** The first bucket's start, epoch ms. */
  startMs: number;
  bucketMs: number;
  points: number;
}

/**
 * The user's activity per bucket (`points` of them, zero-filled), from the per-minute
 * rollups; null when `endpointId` is not one of the user's endpoints.
 */
export async function eventActivity(em: EntityManager, query: ActivityQuery): Promise<ActivityBucketCounts[] | null> {
  const endpointId = query.endpointId ?? null;
  if (endpointId !== null && !isUuid(endpointId)) return null;
  const endMs = query.startMs + query.points * query.bucketMs;
  const range = [query.startMs, query.bucketMs, query.startMs, endMs];
  const rows = await em.execute<
    Array<{
      endpoints: number;
      counts: Array<{ i: number; captured: number; delivered: number; failed: number }>;
      latencies: Array<{ i: number; bucket: number; n: number }>;
    }>
  >(ACTIVITY, [query.teamId, endpointId, endpointId, ...range, ...range]);
  const row = rows[0]!;
  if (endpointId !== null && row.endpoints === 0) return null;
  const buckets = Array.from({ length: query.points }, () => ({ captured: 0, delivered: 0, failed: 0, latencies: Array<number>(LATENCY_BUCKETS).fill(0) }));
  for (const { i, captured, delivered, failed } of row.counts) Object.assign(buckets[i]!, { captured, delivered, failed });
  for (const { i, bucket, n } of row.latencies) {
    // A bucket number past the current list (written by a newer version) counts as the last one.
    buckets[i]!.latencies[Math.min(bucket, LATENCY_BUCKETS - 1)]! += n;
  }
  return buckets;
}

/*
 * Folds the deltas of the recent minutes before the current one ($1 = now, epoch ms) into one
 * row per endpoint and minute (and bucket), at most $2 groups per statement; rows appended
 * meanwhile are not in the delete's snapshot and stay for the next fold, so sums never
 * change. The hot path only appends, so nothing it does waits on this.
 */
const RECENT_MINUTES = `
  minute >= date_trunc('minute', to_timestamp($1::float8 / 1000)) - interval '${FOLD_LOOKBACK_MINUTES} minutes'
  and minute < date_trunc('minute', to_timestamp($1::float8 / 1000))`;

const FOLD_EVENT_MINUTES = `
with groups as (
  select endpoint_id, minute from event_minutes where ${RECENT_MINUTES}
  group by endpoint_id, minute having count(*) > 1
  limit $2
),
gone as (
  delete from event_minutes t using groups g
  where t.endpoint_id = g.endpoint_id and t.minute = g.minute
  returning t.endpoint_id, t.minute, t.captured, t.delivered, t.failed
),
folded as (
  insert into event_minutes (endpoint_id, minute, captured, delivered, failed)
  select endpoint_id, minute, sum(captured), sum(delivered), sum(failed) from gone group by endpoint_id, minute
)
select (select count(*) from groups)::int as groups, (select count(*) from gone)::int as folded`;

const FOLD_LATENCY_MINUTES = `
with groups as (
  select endpoint_id, minute, bucket from latency_minutes where ${RECENT_MINUTES}
  group by endpoint_id, minute, bucket having count(*) > 1
  limit $2
),
gone as (
  delete from latency_minutes t using groups g
  where t.endpoint_id = g.endpoint_id and t.minute = g.minute and t.bucket = g.bucket
  returning t.endpoint_id, t.minute, t.bucket, t.n
),
folded as (
  insert into latency_minutes (endpoint_id, minute, bucket, n)
  select endpoint_id, minute, bucket, sum(n) from gone group by endpoint_id, minute, bucket
)
select (select count(*) from groups)::int as groups, (select count(*) from gone)::int as folded`;

/** Rows older than the rollups are kept ($1 = the cut-off, epoch ms), at most $2 a statement. */
const expireStatement = (table: string) => `
delete from ${table} where id in (select id from ${table} where minute < to_timestamp($1::float8 / 1000) limit $2)`;

/** What one compaction did, per table: delta rows folded and expired rows deleted. */
export interface ActivityCompaction {
  folded: number;
  expired: number;
  /** A statement reached its limit: there is more to do at once. */
  more: boolean;
}

/**
 * Folds the recent minutes' deltas and deletes rollups older than ACTIVITY_KEPT_DAYS, each
 * statement bounded by `limit` (groups folded, rows deleted). Deltas of minutes before the
 * look-back (the job stood still that long) are never folded: still summed by every read,
 * and deleted with their minute.
 */
export async function compactEventActivity(pool: Pool, now: number, limit: number): Promise<ActivityCompaction> {
  const cutoff = now - ACTIVITY_KEPT_DAYS * 86_400_000;
  let folded = 0;
  let expired = 0;
  let more = false;
  for (const [name, text] of [
    ["rehook_fold_event_minutes", FOLD_EVENT_MINUTES],
    ["rehook_fold_latency_minutes", FOLD_LATENCY_MINUTES],
  ] as const) {
    const result = await pool.query<{ groups: number; folded: number }>({ name, text, values: [now, limit] });
    folded += result.rows[0]!.folded;
    more ||= result.rows[0]!.groups >= limit;
  }
  for (const table of ["event_minutes", "latency_minutes"]) {
    const result = await pool.query(expireStatement(table), [cutoff, limit]);
    expired += result.rowCount ?? 0;
    more ||= (result.rowCount ?? 0) >= limit;
  }
  return { folded, expired, more };
}

/** Removes a deleted endpoint's rollup rows (it no longer exists). */
export async function forgetEndpointActivity(pool: Pool, endpointId: string): Promise<void> {
  for (const table of ["event_minutes", "latency_minutes"]) {
    await pool.query(`delete from ${table} where endpoint_id = $1 and not exists (select 1 from endpoints where id = $1)`, [endpointId]);
  }
}
