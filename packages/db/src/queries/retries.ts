import type { EntityManager } from "@mikro-orm/postgresql";
import { isUuid, type EventStatus } from "@rehook/core";
import { BUS_CHANNEL } from "../event-bus.js";
import { LOCK_EVENTS_SQL, resumEvents, uuidArray } from "./event-status.js";

/*
 * "Retry now" and resuming, by hand. Each changes deliveries, then sums their events up
 * again (resumEvents), which moves the counts and tells the live feeds. Locks go in the
 * order completions take them: events first, then destinations.
 */

/** What "retry now" found and did for one event. */
export type RetryEventResult =
  | { kind: "not_found" }
  /** Not applicable: nothing failed or waits (delivered, capture-only, or every delivery being sent right now). */
  | { kind: "not_applicable"; status: EventStatus; inFlight: boolean; forwards: boolean }
  | { kind: "queued"; endpointId: string; nextAttemptAt: Date; forwardingPaused: boolean };

/** A failed delivery sent again is no longer a resolved failure: if it fails again, that failure is a new one. */
const UNRESOLVED = "resolved_at = null, resolved_by_replay_id = null, resolved_by_user_id = null, resolution_note = null";

/*
 * The event's failed deliveries go back to pending and its waiting ones are made due now;
 * either is then claimed like any due delivery, as its next attempt. Delivered ones are left
 * alone (a retry re-sends to the failed destinations only), and so is a delivery being sent
 * right now; a retry an instance keeps in memory loses its lease, and that instance's
 * re-claim finds it changed.
 */
const RETRY_EVENT = `
with target as (
  select d.event_id, d.destination_id, d.status,
         -- Leased with its retry still ahead: kept in memory for that retry, not being sent.
         coalesce(d.lease_expires_at > now() and (d.next_attempt_at is null or d.next_attempt_at <= now()), false) as in_flight
  from deliveries d join events e on e.id = d.event_id join endpoints p on p.id = e.endpoint_id
  where d.event_id = ? and p.team_id = ? and d.status in ('failed', 'pending')
  for update of d
),
changed as (
  update deliveries d set status = 'pending', next_attempt_at = now(), completed_at = null, lease_expires_at = null, ${UNRESOLVED}
  from target t
  where d.event_id = t.event_id and d.destination_id = t.destination_id and not t.in_flight
  returning d.destination_id
)
select (select count(*) from changed) as changed, coalesce(bool_or(t.in_flight), false) as in_flight,
       (select bool_or(x.forwarding_paused_at is not null) from destinations x where x.id in (select destination_id from changed)) as paused
from target t`;

/*
 * Failed events forwarded before routing have no delivery rows (the upgrade queued only
 * pending ones): before a retry, each gets a failed delivery to its endpoint's first
 * destination, numbered after the attempts it already made, so it is retried like any other.
 */
const ADOPT_FAILED_BEFORE_ROUTING = `
insert into deliveries (event_id, destination_id, endpoint_id, status, attempts, completed_at)
select e.id, t.id, e.endpoint_id, 'failed', (select count(*) from delivery_attempts a where a.event_id = e.id), e.completed_at
from events e cross join lateral (select t.id from destinations t where t.endpoint_id = e.endpoint_id order by t.position limit 1) t
where e.endpoint_id = ? and e.status = 'failed' and (?::uuid is null or e.id = ?::uuid)
  and not exists (select 1 from deliveries d where d.event_id = e.id)
on conflict do nothing`;

export async function retryOwnedEvent(em: EntityManager, teamId: string, eventId: string): Promise<RetryEventResult> {
  if (!isUuid(eventId)) return { kind: "not_found" };
  return em.transactional(async (tx) => {
    const events = await tx.execute<Array<{ id: string; endpoint_id: string; status: EventStatus; lease_on_event: boolean }>>(
      `select e.id, e.endpoint_id, e.status, e.fast_path_destination_id is not null as lease_on_event
       from events e join endpoints p on p.id = e.endpoint_id where e.id = ? and p.team_id = ? for no key update of e`,
      [eventId, teamId],
    );
    const event = events[0];
    if (!event) return { kind: "not_found" as const };
    await tx.execute(ADOPT_FAILED_BEFORE_ROUTING, [event.endpoint_id, eventId, eventId]);
    const rows = await tx.execute<Array<{ changed: string; in_flight: boolean; paused: boolean | null }>>(RETRY_EVENT, [eventId, teamId]);
    const row = rows[0]!;
    // A fast-path lease on the event: its only delivery is being sent right now (no row yet).
    const forwards = event.lease_on_event || (await tx.execute<Array<{ n: string }>>(`select count(*) as n from deliveries where event_id = ?`, [eventId]))[0]!.n !== "0";
    if (Number(row.changed) === 0) return { kind: "not_applicable" as const, status: event.status, inFlight: row.in_flight || event.lease_on_event, forwards };
    await resumEvents(tx, [eventId], BUS_CHANNEL);
    return { kind: "queued" as const, endpointId: event.endpoint_id, nextAttemptAt: new Date(), forwardingPaused: row.paused ?? false };
  });
}

/** Makes the endpoint's failed deliveries due now; null when the user has no such endpoint. */
export async function retryFailedOfEndpoint(em: EntityManager, teamId: string, endpointId: string): Promise<{ count: number; forwardingPaused: boolean } | null> {
  if (!isUuid(endpointId)) return null;
  return em.transactional(async (tx) => {
    const found = await tx.execute<Array<{ paused: boolean }>>(
      `select exists (select 1 from destinations d where d.endpoint_id = p.id and d.forwarding_paused_at is not null) as paused
       from endpoints p where p.id = ? and p.team_id = ?`,
      [endpointId, teamId],
    );
    if (found.length === 0) return null;
    await tx.execute(ADOPT_FAILED_BEFORE_ROUTING, [endpointId, null, null]);
    // The failed events, locked in id order (as completions lock them) before their deliveries change.
    const failed = await tx.execute<Array<{ id: string }>>(
      `select distinct event_id as id from deliveries where endpoint_id = ? and status = 'failed' order by event_id`,
      [endpointId],
    );
    const eventIds = failed.map((row) => row.id);
    if (eventIds.length === 0) return { count: 0, forwardingPaused: found[0]!.paused };
    await tx.execute(LOCK_EVENTS_SQL, [uuidArray(eventIds)]);
    await tx.execute(
      `update deliveries set status = 'pending', next_attempt_at = now(), completed_at = null, lease_expires_at = null, ${UNRESOLVED}
       where endpoint_id = ? and status = 'failed' and event_id = any(?::uuid[])`,
      [endpointId, uuidArray(eventIds)],
    );
    await resumEvents(tx, eventIds, BUS_CHANNEL);
    return { count: eventIds.length, forwardingPaused: found[0]!.paused };
  });
}

/*
 * Resumes the paused destinations of the endpoint (or the one named): their breakers go from
 * open to half-open (core's breaker.ts). The count of failed attempts in a row is kept, so the
 * first send after a resume is a probe, one delivery on its own (the oldest due), and the
 * backlog flows only once a probe is delivered; a failed probe adds one to the count and pauses
 * the destination again. Their scheduled retries become due now, so the backlog drains in its
 * usual (oldest first) order. A destination that is not paused is left as it is: its count
 * goes back to 0 only when a delivery gets through.
 */
const RESUME = `
with prev as (
  select d.id, d.forwarding_paused_at as paused_at from destinations d join endpoints p on p.id = d.endpoint_id
  where p.id = ? and p.team_id = ? and (?::uuid is null or d.id = ?::uuid)
  order by d.id
  for no key update of d
),
resumed as (
  update destinations d set forwarding_paused_at = null, paused_reason = null
  from prev where d.id = prev.id and prev.paused_at is not null
  returning d.id, d.consecutive_failures
),
due as (
  update deliveries l set next_attempt_at = now()
  from resumed r
  where l.destination_id = r.id and l.status = 'pending' and l.next_attempt_at > now()
  returning l.event_id
)
select (select count(*) from endpoints where id = ? and team_id = ?) as found, (select count(*) from prev) as destinations,
       (select count(*) from due) as rescheduled,
       (select coalesce(json_agg(json_build_object('id', id, 'consecutive_failures', consecutive_failures) order by id), '[]') from resumed) as resumed`;

/** What a resume did: the destinations it found, the paused ones it resumed with their counts (kept), the retries made due. */
export interface ResumeResult {
  destinations: number;
  rescheduled: number;
  resumed: Array<{ id: string; consecutiveFailures: number }>;
}

/** Resumes forwarding of the endpoint's destinations (or only `destinationId`); null when the user has no such endpoint. */
export async function resumeOwnedEndpoint(em: EntityManager, teamId: string, endpointId: string, destinationId: string | null = null): Promise<ResumeResult | null> {
  if (!isUuid(endpointId) || (destinationId !== null && !isUuid(destinationId))) return null;
  const rows = await em.execute<Array<{ found: string; destinations: string; rescheduled: string; resumed: Array<{ id: string; consecutive_failures: number }> }>>(RESUME, [
    endpointId,
    teamId,
    destinationId,
    destinationId,
    endpointId,
    teamId,
  ]);
  const row = rows[0]!;
  if (Number(row.found) === 0) return null;
  return {
    rescheduled: Number(row.rescheduled),
    destinations: Number(row.destinations),
    resumed: row.resumed.map((resumed) => ({ id: resumed.id, consecutiveFailures: resumed.consecutive_failures })),
  };
}
