import type { EntityManager } from "@mikro-orm/postgresql";
import { deliveryState, isUuid, type DeliveryState, type HeaderList, type StoredDeliveryStatus } from "@rehook/core";

/*
 * What became of events at each destination, as lists and an event's page read it: each
 * delivery's state (core's deliveryState: a pending delivery of a paused destination is
 * paused), and every attempt with the destination it went to.
 *
 * Attempts stored before routing have no destination_id. They went to the endpoint's one
 * destination of the time, whose URL the event kept (events.destination_url): ATTEMPT_DESTINATION
 * names the destination with that URL (the lowest position), in the query that reads the
 * attempts, so no reader assumes "the first destination". Nothing is backfilled: at 10M
 * attempts a backfill would rewrite every pre-routing row (a new row version each, its WAL,
 * the upgrade held for minutes) to store what one index probe per event gives.
 */

/** The destination an attempt `a` of event `e` went to (its own, or the one a pre-routing attempt went to: see above); null when none is known now. */
const ATTEMPT_DESTINATION = `coalesce(a.destination_id,
  (select t.id from destinations t where t.endpoint_id = e.endpoint_id and t.url = e.destination_url order by t.position limit 1))`;

/** One delivery of a listed event: where it went and how it stands. */
export interface ListedDelivery {
  destinationId: string;
  /** The destination's name now (null: removed since). */
  name: string | null;
  status: DeliveryState;
  /** While pending: when its next attempt is due (null: now, or under way). */
  nextAttemptAt: Date | null;
}

/**
 * Marks each row with its deliveries' states, destination names beside them: one query for
 * the page (indexed by the page's ids; each endpoint's few destinations), never one per row.
 * Filtered: an enabled destination with a filter, there before the event came, that has no
 * delivery of a routed event (pre-routing events, which have no delivery rows, are left alone).
 */
export async function markDeliveries<Row extends { id: string; status: string; deliveries: ListedDelivery[] }>(em: EntityManager, rows: Row[]): Promise<Row[]> {
  const routed = rows.filter((row) => row.status === "pending" || row.status === "delivered" || row.status === "failed").map((row) => row.id);
  const considered = rows.filter((row) => row.status !== "duplicate").map((row) => row.id);
  if (considered.length === 0) return rows;
  const pending = rows.filter((row) => row.status === "pending").map((row) => row.id);
  const found = await em.execute<
    Array<{ event_id: string; destination_id: string; name: string | null; status: StoredDeliveryStatus; next_attempt_at: Date | null; paused: boolean | null }>
  >(
    `with stored as (
       select d.event_id, d.destination_id, d.status, d.next_attempt_at from deliveries d where d.event_id = any(?::uuid[])
       union all
       -- A pending event may be with the fast path, its only delivery leased on the event row (no delivery row yet).
       select e.id, e.fast_path_destination_id, 'pending', null from events e where e.id = any(?::uuid[]) and e.fast_path_destination_id is not null
     ),
     filtered as (
       select e.id as event_id, t.id as destination_id, 'filtered' as status, null::timestamptz as next_attempt_at
       from events e join destinations t on t.endpoint_id = e.endpoint_id
       where e.id = any(?::uuid[]) and t.enabled and t.filter is not null and t.created_at <= e.received_at
         and not exists (select 1 from stored s where s.event_id = e.id and s.destination_id = t.id)
         and (e.status = 'captured' or exists (select 1 from stored s where s.event_id = e.id))
     )
     select x.event_id, x.destination_id, t.name, x.status, x.next_attempt_at, t.forwarding_paused_at is not null as paused
     from (select * from stored union all select * from filtered) x
     left join destinations t on t.id = x.destination_id
     order by x.event_id, t.position nulls last, x.destination_id`,
    [`{${routed.join(",")}}`, `{${pending.join(",")}}`, `{${considered.join(",")}}`],
  );
  const byEvent = new Map<string, ListedDelivery[]>();
  for (const row of found) {
    const list = byEvent.get(row.event_id) ?? [];
    list.push({
      destinationId: row.destination_id,
      name: row.name,
      status: deliveryState({ status: row.status, destinationPaused: row.paused === true }),
      nextAttemptAt: row.status === "pending" && row.next_attempt_at ? new Date(row.next_attempt_at) : null,
    });
    byEvent.set(row.event_id, list);
  }
  return rows.map((row) => (byEvent.has(row.id) ? { ...row, deliveries: byEvent.get(row.id)! } : row));
}

/** Why a destination's filter left an event out (see EventDelivery.filterReason). */
export type FilterReason = "no_match" | "work_budget_exceeded";

/** Where one event went (or did not): one entry per destination of its endpoint that it concerns. */
export interface EventDelivery {
  /** Null only for an event forwarded before routing whose destination was removed (or its URL changed) since: `url` is where it went. */
  destinationId: string | null;
  /** The destination's name and URL now (null: the destination was deleted since). */
  name: string | null;
  url: string | null;
  /**
   * core's deliveryState: paused is a pending delivery whose destination is paused now;
   * filtered, the destination existed and was enabled when the event came, and its filter left the event out.
   */
  status: DeliveryState;
  /**
   * Why a filtered one was: its filter said no (no_match), or the capture's filter work budget
   * ran out before it could say (work_budget_exceeded). Null unless filtered.
   */
  filterReason: FilterReason | null;
  attempts: number;
  /** While pending or paused: when its next attempt is due (null: now). */
  nextAttemptAt: Date | null;
  /** A failed delivery made good since (null: not resolved, or not failed). */
  resolution: DeliveryResolution | null;
}

/** How a failed delivery was resolved: by a replay to its destination that delivered, or by a member with a note. */
export interface DeliveryResolution {
  at: Date;
  /** The replay attempt that delivered (null: marked by a member). */
  replayId: string | null;
  /** The member who marked it, their email now (null: by a replay, or the member was deleted since). */
  userId: string | null;
  userEmail: string | null;
  note: string | null;
}

/*
 * The event's deliveries, and the destinations it was filtered away from: enabled ones
 * created before it came with no delivery of it (duplicates and events of capture-only
 * endpoints have none). Events forwarded before routing have no delivery rows: their attempts
 * went to the destination with the URL the event kept (ATTEMPT_DESTINATION), shown with the
 * event's own status; when none has that URL now, to a removed one known by that URL.
 */
const EVENT_DELIVERIES = `
with event as (
  select e.id, e.endpoint_id, e.received_at, e.status, e.destination_url, e.fast_path_destination_id, e.filters_cut_short
  from events e join endpoints p on p.id = e.endpoint_id where e.id = ? and p.team_id = ?
),
stored as (
  select d.destination_id, t.name, t.url, t.position, d.status, d.attempts, d.next_attempt_at, null as filter_reason, t.forwarding_paused_at is not null as paused,
         d.resolved_at, d.resolved_by_replay_id, d.resolved_by_user_id, u.email as resolved_by_email, d.resolution_note
  from event x join deliveries d on d.event_id = x.id left join destinations t on t.id = d.destination_id
  left join users u on u.id = d.resolved_by_user_id
  union all
  -- Its only delivery being sent by the fast path, leased on the event (no row yet): the first attempt, under way.
  select x.fast_path_destination_id, t.name, t.url, t.position, 'pending', 1, null, null, t.forwarding_paused_at is not null,
         null, null, null, null, null
  from event x left join destinations t on t.id = x.fast_path_destination_id
  where x.fast_path_destination_id is not null
),
before_routing as (
  select t.id as destination_id, t.name, coalesce(t.url, x.destination_url) as url, t.position, x.status,
         (select count(*) from delivery_attempts a where a.event_id = x.id)::int as attempts, null::timestamptz as next_attempt_at, null as filter_reason, false as paused,
         null::timestamptz, null::uuid, null::uuid, null, null
  from event x
  left join lateral (select * from destinations t where t.endpoint_id = x.endpoint_id and t.url = x.destination_url order by t.position limit 1) t on true
  where x.status in ('delivered', 'failed') and not exists (select 1 from stored)
    and exists (select 1 from delivery_attempts a where a.event_id = x.id and a.destination_id is null)
),
filtered as (
  select t.id as destination_id, t.name, t.url, t.position, 'filtered' as status, 0 as attempts, null::timestamptz as next_attempt_at,
         case when t.id = any(x.filters_cut_short) then 'work_budget_exceeded' else 'no_match' end as filter_reason, false as paused,
         null::timestamptz, null::uuid, null::uuid, null, null
  from event x join destinations t on t.endpoint_id = x.endpoint_id
  where x.status <> 'duplicate' and t.enabled and t.filter is not null and t.created_at <= x.received_at
    and not exists (select 1 from stored s where s.destination_id = t.id) and not exists (select 1 from before_routing)
)
select * from (select * from stored union all select * from before_routing union all select * from filtered) all_deliveries
order by position nulls last, destination_id`;

/** The deliveries of one of the user's events (empty for someone else's, or one that went nowhere). */
export async function ownedEventDeliveries(em: EntityManager, teamId: string, eventId: string): Promise<EventDelivery[]> {
  if (!isUuid(eventId)) return [];
  const rows = await em.execute<
    Array<{
      destination_id: string | null;
      name: string | null;
      url: string | null;
      status: StoredDeliveryStatus;
      attempts: number;
      next_attempt_at: Date | null;
      filter_reason: FilterReason | null;
      paused: boolean | null;
      resolved_at: Date | null;
      resolved_by_replay_id: string | null;
      resolved_by_user_id: string | null;
      resolved_by_email: string | null;
      resolution_note: string | null;
    }>
  >(EVENT_DELIVERIES, [eventId, teamId]);
  return rows.map((row) => ({
    destinationId: row.destination_id,
    name: row.name,
    url: row.url,
    status: deliveryState({ status: row.status, destinationPaused: row.paused === true }),
    attempts: Number(row.attempts),
    nextAttemptAt: row.status === "pending" && row.next_attempt_at ? new Date(row.next_attempt_at) : null,
    filterReason: row.filter_reason,
    resolution:
      row.status === "failed" && row.resolved_at !== null
        ? {
            at: new Date(row.resolved_at),
            replayId: row.resolved_by_replay_id,
            userId: row.resolved_by_user_id,
            userEmail: row.resolved_by_email,
            note: row.resolution_note,
          }
        : null,
  }));
}

/** One recorded attempt to forward an event, without what the destination answered. */
export interface DeliveryAttemptSummary {
  /** The destination it went to (null: one removed since that predates routing; destinationUrl is where it went). */
  destinationId: string | null;
  /** That destination's name now (null: removed since). */
  destinationName: string | null;
  /** That destination's URL now, or for a removed pre-routing one the URL the event was forwarded to (null: removed since). */
  destinationUrl: string | null;
  attempt: number;
  startedAt: Date;
  latencyMs: number;
  responseStatus: number | null;
  error: string | null;
  outcome: "delivered" | "failed";
}

/** The same attempt with the destination's answer: its headers and the first bytes of its body. */
export interface DeliveryAttemptDetail extends DeliveryAttemptSummary {
  responseHeaders: HeaderList | null;
  /** Up to the preview size asked for; `bodyTruncated` when the stored answer is longer, or was cut when stored. */
  responseBody: Buffer | null;
  bodyTruncated: boolean;
}

interface AttemptRow {
  destination_id: string | null;
  destination_name: string | null;
  destination_url: string | null;
  attempt: number;
  started_at: Date;
  latency_ms: number;
  response_status: number | null;
  error: string | null;
  outcome: "delivered" | "failed";
}

/** The attempt `a` with its destination resolved (`r`, `t`): from delivery_attempts a join events e join endpoints p. */
const ATTEMPT_FROM = `delivery_attempts a join events e on e.id = a.event_id join endpoints p on p.id = e.endpoint_id
  cross join lateral (select ${ATTEMPT_DESTINATION} as destination_id) r
  left join destinations t on t.id = r.destination_id`;
const ATTEMPT_COLUMNS = `a.id, r.destination_id, t.name as destination_name,
  coalesce(t.url, case when a.destination_id is null then e.destination_url end) as destination_url,
  a.attempt, a.started_at, a.latency_ms, a.response_status, a.error, a.outcome`;

const toAttempt = (row: AttemptRow): DeliveryAttemptSummary => ({
  destinationId: row.destination_id,
  destinationName: row.destination_name,
  destinationUrl: row.destination_url,
  attempt: row.attempt,
  startedAt: new Date(row.started_at),
  latencyMs: row.latency_ms,
  responseStatus: row.response_status,
  error: row.error,
  outcome: row.outcome,
});

/** Most attempts an event view lists (a policy allows 20; each "retry now" adds one). */
export const MAX_LISTED_ATTEMPTS = 100;

/** The recorded attempts of one of the user's events, first to last, each with its destination (empty for someone else's). */
export async function ownedEventAttempts(em: EntityManager, teamId: string, eventId: string): Promise<DeliveryAttemptSummary[]> {
  if (!isUuid(eventId)) return [];
  const rows = await em.execute<AttemptRow[]>(
    // The newest attempts when there are more than the list holds, shown oldest first.
    `select * from (
       select ${ATTEMPT_COLUMNS}
       from ${ATTEMPT_FROM}
       where a.event_id = ? and p.team_id = ?
       order by a.id desc
       limit ?
     ) newest order by id`,
    [eventId, teamId, MAX_LISTED_ATTEMPTS],
  );
  return rows.map(toAttempt);
}

/**
 * One attempt of one of the user's events with its answer, the body up to `previewBytes`; null
 * when missing or someone else's. Each destination numbers its attempts from 1: `destinationId`
 * names whose; without it, the attempt with that number whose destination is unknown, else the
 * latest with that number to any destination.
 */
export async function findOwnedAttempt(
  em: EntityManager,
  teamId: string,
  eventId: string,
  attempt: number,
  previewBytes: number,
  destinationId?: string,
): Promise<DeliveryAttemptDetail | null> {
  if (!isUuid(eventId) || (destinationId !== undefined && !isUuid(destinationId))) return null;
  const rows = await em.execute<
    Array<AttemptRow & { response_headers: HeaderList | string | null; body_preview: Buffer | null; body_bytes: number | null; response_truncated: boolean }>
  >(
    `select ${ATTEMPT_COLUMNS}, a.response_headers,
            substring(a.response_body from 1 for ?) as body_preview, octet_length(a.response_body) as body_bytes, a.response_truncated
     from ${ATTEMPT_FROM}
     where a.event_id = ? and a.attempt = ? and p.team_id = ? and (?::uuid is null or r.destination_id = ?::uuid)
     order by r.destination_id is null desc, a.id desc
     limit 1`,
    [previewBytes, eventId, attempt, teamId, destinationId ?? null, destinationId ?? null],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    ...toAttempt(row),
    responseHeaders: typeof row.response_headers === "string" ? (JSON.parse(row.response_headers) as HeaderList) : row.response_headers,
    responseBody: row.body_preview,
    bodyTruncated: row.response_truncated || (row.body_bytes ?? 0) > (row.body_preview?.byteLength ?? 0),
  };
}
