import type { EntityManager } from "@mikro-orm/postgresql";
import { isUuid } from "@rehook/core";
import { announceEventsCte, BUS_CHANNEL } from "../event-bus.js";

/*
 * Resolution of failed deliveries (core's delivery-resolution.ts states the rules): a replay
 * that delivered to the delivery's own destination, or a member with a note. The event-level
 * flag is computed from the deliveries, never stored: nothing can drift.
 */

/**
 * The event `e` is resolved: failed, with failed deliveries, every one of them resolved
 * (core's eventResolved). Two probes of the deliveries' primary key (event_id, …).
 */
export const EVENT_RESOLVED_SQL = `(e.status = 'failed'
  and exists (select 1 from deliveries d where d.event_id = e.id and d.status = 'failed')
  and not exists (select 1 from deliveries d where d.event_id = e.id and d.status = 'failed' and d.resolved_at is null))`;

/** Which of these (failed) events are resolved: one indexed read of their failed deliveries. */
export async function resolvedEventIds(em: EntityManager, failedEventIds: string[]): Promise<Set<string>> {
  if (failedEventIds.length === 0) return new Set();
  const rows = await em.execute<Array<{ event_id: string }>>(
    `select d.event_id from deliveries d where d.event_id = any(?::uuid[]) and d.status = 'failed'
     group by d.event_id having bool_and(d.resolved_at is not null)`,
    [`{${failedEventIds.join(",")}}`],
  );
  return new Set(rows.map((row) => row.event_id));
}

/** Whether one event is resolved now (see EVENT_RESOLVED_SQL). */
export async function isEventResolved(em: EntityManager, eventId: string): Promise<boolean> {
  const rows = await em.execute<Array<{ resolved: boolean }>>(`select ${EVENT_RESOLVED_SQL} as resolved from events e where e.id = ?`, [eventId]);
  return rows[0]?.resolved ?? false;
}

/**
 * A replay delivered to the event's `destinationId`: its failed, unresolved delivery there is
 * resolved by that replay. Run in the transaction that records the attempt. Answers whether
 * a delivery was resolved.
 */
export async function resolveDeliveryByReplay(em: EntityManager, resolution: { eventId: string; destinationId: string; replayId: string; at: Date }): Promise<boolean> {
  const rows = await em.execute<Array<{ event_id: string }>>(
    `update deliveries set resolved_at = ?, resolved_by_replay_id = ?
     where event_id = ? and destination_id = ? and status = 'failed' and resolved_at is null
     returning event_id`,
    [resolution.at, resolution.replayId, resolution.eventId, resolution.destinationId],
  );
  if (rows.length === 0) return false;
  await announceResolution(em, resolution.eventId);
  return true;
}

/**
 * Tells the live feeds, at commit, that the event changed (its status did not: its
 * resolution did), so the rows they show read it again and say "resolved".
 */
async function announceResolution(em: EntityManager, eventId: string): Promise<void> {
  await em.execute(
    `with touched as (select e.id, e.endpoint_id, p.team_id, e.status from events e join endpoints p on p.id = e.endpoint_id where e.id = ?),
     ${announceEventsCte({ rows: "touched", type: "event.status", status: "status", channel: "?" })}
     select count(*) from announced`,
    [eventId, BUS_CHANNEL],
  );
}

/** One delivery of one of the team's events as resolution sees it, locked until the transaction ends. */
export interface DeliveryToResolve {
  eventId: string;
  destinationId: string;
  endpointId: string;
  /** The destination's name now (null: removed since). */
  destinationName: string | null;
  status: "pending" | "delivered" | "failed";
  resolvedAt: Date | null;
}

/** The delivery, locked (null: no such event of the team, or it has no delivery to that destination). */
export async function lockOwnedDelivery(em: EntityManager, teamId: string, eventId: string, destinationId: string): Promise<DeliveryToResolve | null> {
  if (!isUuid(eventId) || !isUuid(destinationId)) return null;
  const rows = await em.execute<Array<{ event_id: string; destination_id: string; endpoint_id: string; name: string | null; status: DeliveryToResolve["status"]; resolved_at: Date | null }>>(
    `select d.event_id, d.destination_id, d.endpoint_id, t.name, d.status, d.resolved_at
     from deliveries d join endpoints p on p.id = d.endpoint_id left join destinations t on t.id = d.destination_id
     where d.event_id = ? and d.destination_id = ? and p.team_id = ?
     for update of d`,
    [eventId, destinationId, teamId],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    eventId: row.event_id,
    destinationId: row.destination_id,
    endpointId: row.endpoint_id,
    destinationName: row.name,
    status: row.status,
    resolvedAt: row.resolved_at === null ? null : new Date(row.resolved_at),
  };
}

/** Marks a (locked, failed, unresolved) delivery resolved by a member, with their note. */
export async function resolveDeliveryByMember(em: EntityManager, resolution: { eventId: string; destinationId: string; userId: string; note: string; at: Date }): Promise<void> {
  await em.execute(
    `update deliveries set resolved_at = ?, resolved_by_user_id = ?, resolution_note = ?
     where event_id = ? and destination_id = ? and status = 'failed' and resolved_at is null`,
    [resolution.at, resolution.userId, resolution.note, resolution.eventId, resolution.destinationId],
  );
  await announceResolution(em, resolution.eventId);
}
