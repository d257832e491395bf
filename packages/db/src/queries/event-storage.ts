import type { EntityManager } from "@mikro-orm/postgresql";
import { isUuid, type EventStatus } from "@rehook/core";
import { withTransaction, type Pool } from "../pool.js";
import type { EventPartition } from "../partitions.js";

/** The user's events matching an endpoint and a status, exactly, from event_counts (a few rows, whatever the number of events). */
export async function countOwnedEvents(em: EntityManager, teamId: string, filter: { endpointId?: string; status?: EventStatus | string | null }): Promise<number> {
  const where = ["p.team_id = ?"];
  const params: unknown[] = [teamId];
  if (filter.endpointId) (where.push("c.endpoint_id = ?"), params.push(filter.endpointId));
  if (filter.status) (where.push("c.status = ?"), params.push(filter.status));
  const rows = await em.execute<Array<{ n: string | null }>>(`select sum(c.n) as n from event_counts c join endpoints p on p.id = c.endpoint_id where ${where.join(" and ")}`, params);
  return Number(rows[0]?.n ?? 0);
}

/*
 * Per endpoint of the team: its exact event total from event_counts (a few delta rows each)
 * and its newest event's id, one backward step on the (endpoint_id, id) index per endpoint
 * (per partition), never a scan of the events.
 */
const ENDPOINT_EVENT_STATS = `
  select p.id as endpoint_id, coalesce(c.n, 0) as n, l.id as last_id
  from endpoints p
  left join lateral (select sum(n) as n from event_counts where endpoint_id = p.id) c on true
  left join lateral (select e.id from events e where e.endpoint_id = p.id order by e.id desc limit 1) l on true
  where p.team_id = ?`;

export interface EndpointEventStats {
  eventCount: number;
  /** The newest event's id (UUIDv7: its time is when it was received), or null when there is none. */
  lastEventId: string | null;
}

/** Each of the user's endpoints' event total and newest event, by endpoint id. */
export async function endpointEventStats(em: EntityManager, teamId: string): Promise<Map<string, EndpointEventStats>> {
  const rows = await em.execute<Array<{ endpoint_id: string; n: string; last_id: string | null }>>(ENDPOINT_EVENT_STATS, [teamId]);
  return new Map(rows.map((row) => [row.endpoint_id, { eventCount: Number(row.n), lastEventId: row.last_id }]));
}

/*
 * Folds every endpoint's delta rows into one row per status (zero totals disappear). Rows
 * appended meanwhile are not in the delete's snapshot and stay for the next fold: the sums
 * never change.
 */
const COMPACT_COUNTS = `
with gone as (
  delete from event_counts
  where endpoint_id in (select endpoint_id from event_counts group by endpoint_id having count(*) > count(distinct status) or bool_or(n = 0))
  returning endpoint_id, status, n
),
folded as (
  insert into event_counts (endpoint_id, status, n)
  select endpoint_id, status, sum(n) from gone group by endpoint_id, status having sum(n) <> 0
)
select count(*) as folded from gone`;

/** Folds the count deltas; answers how many rows were folded. */
export async function compactEventCounts(pool: Pool): Promise<number> {
  const result = await pool.query<{ folded: string }>({ name: "rehook_compact_event_counts", text: COMPACT_COUNTS });
  return Number(result.rows[0]!.folded);
}

/*
 * Takes events out of event_counts and of their endpoints' health counters, given a `tally`
 * CTE (endpoint_id, status, n) of events that are leaving: the CTEs to append to a statement.
 */
const UNCOUNT = `
recounted as (
  insert into event_counts (endpoint_id, status, n) select endpoint_id, status, -n from tally
),
health as (
  update endpoints p
  set delivered_count = greatest(p.delivered_count - t.delivered, 0), failed_count = greatest(p.failed_count - t.failed, 0)
  from (select endpoint_id, coalesce(sum(n) filter (where status = 'delivered'), 0) as delivered,
               coalesce(sum(n) filter (where status = 'failed'), 0) as failed
        from tally group by endpoint_id) t
  where p.id = t.endpoint_id and (t.delivered > 0 or t.failed > 0)
)`;

/*
 * Deletes the events `doomed` selects (a bounded select of ids) with their deliveries and
 * delivery attempts, and in the same statement takes them out of the counts. Their replay
 * attempts go by cascade. One bounded statement: its locks are short.
 */
const purgeStatement = (doomed: string) => `
with doomed as (${doomed}),
gone as (delete from events e using doomed d where e.id = d.id returning e.endpoint_id, e.status),
undelivered as (delete from deliveries l using doomed d where l.event_id = d.id),
unattempted as (delete from delivery_attempts a using doomed d where a.event_id = d.id),
tally as (select endpoint_id, status, count(*) as n from gone group by endpoint_id, status),
${UNCOUNT}
select coalesce(sum(n), 0) as deleted from tally`;

/** Up to $3 of an endpoint's events with ids below $2, oldest first. */
const PURGE_ENDPOINT_BATCH = purgeStatement("select id from events where endpoint_id = $1 and id < $2 order by id limit $3");
/** Up to $2 events of the default partition with ids below $1 (ids no day partition covers). */
const PURGE_DEFAULT_BATCH = purgeStatement("select id from events_default where id < $1 limit $2");

/** The user's event $1 (the join makes another user's id delete nothing). */
const DELETE_OWNED_EVENT = purgeStatement("select e.id from events e join endpoints p on p.id = e.endpoint_id where e.id = ? and p.team_id = ?");

/**
 * Deletes one of the user's events, its deliveries, delivery attempts and replay attempts (by
 * cascade), and takes it out of the counts, in one statement. False when the user has no such event.
 */
export async function deleteOwnedEvent(em: EntityManager, teamId: string, eventId: string): Promise<boolean> {
  if (!isUuid(eventId)) return false;
  const rows = await em.execute<Array<{ deleted: string }>>(DELETE_OWNED_EVENT, [eventId, teamId]);
  return Number(rows[0]?.deleted ?? 0) > 0;
}

/** Ids below this are all ids. */
const EVERY_ID = "ffffffff-ffff-ffff-ffff-ffffffffffff";

/** Deletes up to `limit` of the endpoint's events older than `beforeId` (all of them when unset); answers how many. */
export async function purgeEndpointEvents(pool: Pool, endpointId: string, limit: number, beforeId: string = EVERY_ID): Promise<number> {
  const result = await pool.query<{ deleted: string }>({ name: "rehook_purge_endpoint_batch", text: PURGE_ENDPOINT_BATCH, values: [endpointId, beforeId, limit] });
  return Number(result.rows[0]!.deleted);
}

/** Deletes up to `limit` events of the default partition older than `beforeId`; answers how many. */
export async function purgeDefaultPartition(pool: Pool, beforeId: string, limit: number): Promise<number> {
  const result = await pool.query<{ deleted: string }>({ name: "rehook_purge_default_batch", text: PURGE_DEFAULT_BATCH, values: [beforeId, limit] });
  return Number(result.rows[0]!.deleted);
}

/** Removes a deleted endpoint's count rows (its events are gone). */
export async function forgetEndpointCounts(pool: Pool, endpointId: string): Promise<void> {
  await pool.query("delete from event_counts where endpoint_id = $1 and not exists (select 1 from endpoints where id = $1)", [endpointId]);
}

/** What retention must keep: the longest any endpoint keeps its events, or null when one keeps them for ever. */
export async function longestRetentionDays(pool: Pool, defaultDays: number): Promise<number | null> {
  const result = await pool.query<{ forever: boolean | null; longest: number | null }>(
    `select bool_or(coalesce(retention_days, $1) = 0) as forever, max(coalesce(retention_days, $1)) as longest from endpoints`,
    [defaultDays],
  );
  const row = result.rows[0]!;
  if (row.forever) return null;
  return row.longest ?? defaultDays;
}

/** Endpoints that keep their events for a bounded time, with that time in days. */
export async function endpointRetentions(pool: Pool, defaultDays: number): Promise<Array<{ endpointId: string; days: number }>> {
  const result = await pool.query<{ id: string; days: number }>(
    `select id, coalesce(retention_days, $1) as days from endpoints where coalesce(retention_days, $1) > 0 order by id`,
    [defaultDays],
  );
  return result.rows.map((row) => ({ endpointId: row.id, days: row.days }));
}

/** Attempts referencing events of a partition deleted per statement before it is detached. */
const DEPENDENTS_PER_BATCH = 5_000;

/**
 * Drops a whole partition of events: its events' delivery and replay attempts first (in
 * bounded batches: the detach checks that nothing references the partition), then, in one
 * short transaction, its counts out of event_counts and the health counters, and the detach
 * (which waits at most `lockTimeoutMs` for the table lock, so captures are never held up
 * long; a timeout leaves it for the next run). The detached table is then dropped.
 */
export async function dropEventPartition(pool: Pool, partition: EventPartition, lockTimeoutMs = 2_000): Promise<void> {
  const [range, bounds] = partition.from ? ["event_id >= $1 and event_id < $2", [partition.from, partition.to]] : ["event_id < $1", [partition.to]];
  // deliveries has no id column of its own: its rows are picked by their place in the table.
  for (const [table, key] of [["delivery_attempts", "id"], ["replay_attempts", "id"], ["deliveries", "ctid"]] as const) {
    while (true) {
      const removed = await pool.query(`delete from ${table} where ${key} = any(array(select ${key} from ${table} where ${range} limit ${DEPENDENTS_PER_BATCH}))`, bounds);
      if ((removed.rowCount ?? 0) < DEPENDENTS_PER_BATCH) break;
    }
  }
  await withTransaction(pool, async (client) => {
    await client.query(`set local lock_timeout = ${Math.max(1, Math.floor(lockTimeoutMs))}`);
    await client.query(`
      with tally as (select endpoint_id, status, count(*) as n from "${partition.name}" group by endpoint_id, status),
      ${UNCOUNT}
      select 1`);
    await client.query(`alter table events detach partition "${partition.name}"`);
  });
  await pool.query(`drop table if exists "${partition.name}"`);
}

/**
 * Events stored and not yet delivered or failed, across every endpoint (the metrics'
 * rehook_pending_events): the sum of event_counts' pending rows, a handful per endpoint
 * (folded every few seconds), never a count of the events themselves.
 */
export async function countPendingEvents(pool: Pool): Promise<number> {
  const result = await pool.query<{ n: string | null }>({
    name: "rehook_count_pending",
    text: "select sum(n) as n from event_counts where status = 'pending'",
  });
  return Number(result.rows[0]?.n ?? 0);
}
