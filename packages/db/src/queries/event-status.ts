import type { EntityManager } from "@mikro-orm/postgresql";
import { announceEventsCte } from "../event-bus.js";

/*
 * An event's status sums up its deliveries: failed once any finally failed, else pending
 * while any is pending, else delivered; with none it was only captured. COMPLETE sums
 * inside its own statement (it must combine the rows it updates); changes made by hand
 * (retry, a destination deleted) sum up here, after their own statement.
 */

/**
 * Ids as a PostgreSQL array literal for MikroORM's execute, which would spread a JS array
 * into a list of parameters. Only for uuids (checked by their callers' queries: no comma or brace can occur).
 */
export const uuidArray = (ids: readonly string[]): string => `{${ids.join(",")}}`;

/** Locks events in id order: whoever sums an event up next sees every delivery stored before. */
export const LOCK_EVENTS_SQL = `select id from events where id = any(?::uuid[]) order by id for no key update`;

/**
 * The CTEs that move events whose status changed between their endpoint's status counts
 * (event_counts) and health counters, given a CTE `moved` (id, endpoint_id, was, status).
 * Shared by every statement that changes event statuses after capture.
 */
export const STATUS_MOVES = `
recounted as (
  insert into event_counts (endpoint_id, status, n)
  select endpoint_id, status, sum(delta) from (
    select endpoint_id, status, 1 as delta from moved
    union all
    select endpoint_id, was, -1 from moved
  ) moves
  group by endpoint_id, status
),
health as (
  update endpoints p
  set delivered_count = greatest(p.delivered_count + h.delivered, 0), failed_count = greatest(p.failed_count + h.failed, 0)
  from (select endpoint_id,
               count(*) filter (where status = 'delivered') - count(*) filter (where was = 'delivered') as delivered,
               count(*) filter (where status = 'failed') - count(*) filter (where was = 'failed') as failed
        from moved group by endpoint_id) h
  where p.id = h.endpoint_id and (h.delivered <> 0 or h.failed <> 0)
)`;

/*
 * Sets each event's status and next retry from its deliveries as they are now, moving the
 * changed ones between the endpoints' status counts and health counters, and telling the
 * live feeds. Duplicates are left alone (they have no deliveries by design). A fast-path lease
 * on the event is its only delivery, pending and under way (no row yet).
 */
const RESUM_EVENTS = `
with summed as (
  select e.id, e.endpoint_id, e.status as was,
         case when e.fast_path_destination_id is not null then 'pending'
              when s.n = 0 then 'captured' when s.failed then 'failed' when s.pending then 'pending' else 'delivered' end as status,
         case when e.fast_path_destination_id is null then s.next_attempt_at end as next_attempt_at
  from events e,
       lateral (select count(*) as n, bool_or(d.status = 'failed') as failed, bool_or(d.status = 'pending') as pending,
                       case when bool_and(d.status <> 'pending' or d.next_attempt_at is not null)
                            then min(d.next_attempt_at) filter (where d.status = 'pending') end as next_attempt_at
                from deliveries d where d.event_id = e.id) s
  where e.id = any(?::uuid[]) and e.status <> 'duplicate'
),
changed as (
  update events e
  set status = s.status, next_attempt_at = s.next_attempt_at,
      completed_at = case when s.status in ('delivered', 'failed') then coalesce(e.completed_at, now()) end
  from summed s where e.id = s.id
  returning e.id, e.endpoint_id, s.was, e.status
),
moved as (select * from changed where was <> status),
${STATUS_MOVES},
touched as (select c.id, c.endpoint_id, p.team_id, c.status from changed c join endpoints p on p.id = c.endpoint_id),
${announceEventsCte({ rows: "touched", type: "event.status", status: "status", channel: "?" })}
select count(*) filter (where was <> status) as moved, (select count(*) from announced) as announced from changed`;

/** Sums the events up again from their deliveries (lock them first, in the same transaction, with LOCK_EVENTS_SQL); runs in `em`'s transaction. */
export async function resumEvents(em: EntityManager, eventIds: string[], busChannel: string): Promise<void> {
  if (eventIds.length === 0) return;
  await em.execute(RESUM_EVENTS, [uuidArray(eventIds), busChannel]);
}
