import type { EntityManager } from "@mikro-orm/postgresql";
import { isUuid, type EventStatus } from "@rehook/core";
import { announceEventsCte, BUS_CHANNEL } from "../event-bus.js";


// Events made due again are announced on the bus (event.status, pending) in the statement
// that changes them, so every instance's live feed shows them.
const announce = (changed: string) => announceEventsCte({ rows: changed, type: "event.status", status: "'pending'", channel: "?" });

/** What "retry now" found and did for one event. */
export type RetryEventResult =
  | { kind: "not_found" }
  /** Not applicable: the event is delivered, capture-only, or being sent right now. */
  | { kind: "not_applicable"; status: EventStatus; inFlight: boolean; forwards: boolean }
  | { kind: "queued"; endpointId: string; nextAttemptAt: Date; forwardingPaused: boolean };

/*
 * A failed event goes back to pending (out of the endpoint's failed count: its new final
 * outcome is counted again) and a pending one is made due now; either is then claimed like
 * any due event, as the next attempt of the event itself. An attempt in flight is left alone;
 * a retry an instance keeps in memory loses its lease, and that instance's re-claim finds it changed.
 */
const RETRY_EVENT = `
with target as (
  select e.id, e.endpoint_id, p.team_id, e.status, e.destination_url is not null as forwards,
         -- Leased with its retry still ahead: kept in memory for that retry, not being sent.
         coalesce(e.lease_expires_at > now() and (e.next_attempt_at is null or e.next_attempt_at <= now()), false) as in_flight,
         p.forwarding_paused_at is not null as paused
  from events e join endpoints p on p.id = e.endpoint_id
  where e.id = ? and p.team_id = ?
  for update of e
),
changed as (
  update events e set status = 'pending', next_attempt_at = now(), completed_at = null, lease_expires_at = null
  from target t
  where e.id = t.id and t.forwards and not t.in_flight and t.status in ('failed', 'pending')
  returning e.id, e.endpoint_id, t.team_id, t.status as was, e.next_attempt_at
),
uncounted as (
  update endpoints p set failed_count = greatest(p.failed_count - 1, 0) from changed c where p.id = c.endpoint_id and c.was = 'failed'
),
recounted as (
  insert into event_counts (endpoint_id, status, n)
  select endpoint_id, status, delta from changed c, lateral (values (c.was, -1), ('pending', 1)) as m(status, delta)
  where c.was = 'failed'
),
${announce("changed")}
select t.status, t.forwards, t.in_flight, t.paused, t.endpoint_id, c.next_attempt_at, (select count(*) from announced) as announced
from target t left join changed c on c.id = t.id`;

/** Locks the event's endpoint first: completions and "retry failed" take the endpoint before its events, and so must this. */
const LOCK_ENDPOINT_OF_EVENT = `
select p.id from endpoints p join events e on e.endpoint_id = p.id where e.id = ? and p.team_id = ? for no key update of p`;

export async function retryOwnedEvent(em: EntityManager, teamId: string, eventId: string): Promise<RetryEventResult> {
  if (!isUuid(eventId)) return { kind: "not_found" };
  const rows = await em.transactional(async (tx) => {
    await tx.execute(LOCK_ENDPOINT_OF_EVENT, [eventId, teamId]);
    return tx.execute<Array<{ status: EventStatus; forwards: boolean; in_flight: boolean; paused: boolean; endpoint_id: string; next_attempt_at: Date | null }>>(
      RETRY_EVENT,
      [eventId, teamId, BUS_CHANNEL],
    );
  });
  const row = rows[0];
  if (!row) return { kind: "not_found" };
  if (!row.next_attempt_at) return { kind: "not_applicable", status: row.status, inFlight: row.in_flight, forwards: row.forwards };
  return { kind: "queued", endpointId: row.endpoint_id, nextAttemptAt: new Date(row.next_attempt_at), forwardingPaused: row.paused };
}

/*
 * Every failed event of the endpoint back to pending, due now, out of the failed count. The
 * endpoint row is locked first, so completions storing failures meanwhile wait and count after.
 */
const RETRY_FAILED = `
with endpoint as (
  select id, team_id, forwarding_paused_at is not null as paused from endpoints where id = ? and team_id = ? for no key update
),
changed as (
  update events e set status = 'pending', next_attempt_at = now(), completed_at = null, lease_expires_at = null
  from endpoint p
  where e.endpoint_id = p.id and e.status = 'failed'
  returning e.id, e.endpoint_id, p.team_id
),
uncounted as (
  update endpoints p set failed_count = greatest(p.failed_count - (select count(*) from changed), 0) from endpoint x where p.id = x.id
),
recounted as (
  insert into event_counts (endpoint_id, status, n)
  select x.id, m.status, m.delta * (select count(*) from changed) from endpoint x, (values ('failed', -1), ('pending', 1)) as m(status, delta)
  where exists (select 1 from changed)
),
${announce("changed")}
select x.paused, (select count(*) from changed) as count, (select count(*) from announced) as announced from endpoint x`;

/** Makes the endpoint's failed events due now; null when the user has no such endpoint. */
export async function retryFailedOfEndpoint(em: EntityManager, teamId: string, endpointId: string): Promise<{ count: number; forwardingPaused: boolean } | null> {
  if (!isUuid(endpointId)) return null;
  const rows = await em.getConnection().execute<Array<{ paused: boolean; count: string }>>(RETRY_FAILED, [endpointId, teamId, BUS_CHANNEL]);
  const row = rows[0];
  return row ? { count: Number(row.count), forwardingPaused: row.paused } : null;
}

/*
 * Closes the breaker: forwarding resumes, the failure count restarts, and the endpoint's
 * scheduled retries become due now, so the backlog drains in its usual (oldest first) order.
 */
const RESUME = `
with prev as (
  select id, forwarding_paused_at as paused_at from endpoints where id = ? and team_id = ? for no key update
),
endpoint as (
  update endpoints p set forwarding_paused_at = null, paused_reason = null, consecutive_failures = 0
  from prev where p.id = prev.id
  returning p.id, prev.paused_at
),
-- Only a paused endpoint's backlog is drained at once: on a running one, scheduled retries keep their waits.
due as (
  update events e set next_attempt_at = now()
  from endpoint p
  where p.paused_at is not null and e.endpoint_id = p.id and e.status = 'pending' and e.next_attempt_at > now()
  returning e.id
)
select (select count(*) from endpoint) as found, (select count(*) from due) as rescheduled`;

/** Resumes the endpoint's forwarding; null when the user has no such endpoint. */
export async function resumeOwnedEndpoint(em: EntityManager, teamId: string, endpointId: string): Promise<{ rescheduled: number } | null> {
  if (!isUuid(endpointId)) return null;
  const rows = await em.getConnection().execute<Array<{ found: string; rescheduled: string }>>(RESUME, [endpointId, teamId]);
  return Number(rows[0]!.found) > 0 ? { rescheduled: Number(rows[0]!.rescheduled) } : null;
}
