import { LATENCY_BUCKET_BOUNDS_MS, retryPolicyFromColumns, type EventStatus, type HeaderList, type RetryPolicy } from "@rehook/core";
import type { Pool } from "../pool.js";
import { capturedRequest, type CapturedRequestFields, type CapturedRequestRow } from "./captured-request.js";
import { BODY_BYTES_PER_READ, byteBoundedIds } from "./events.js";
import { enqueueNotifyJobs } from "../jobs/queue.js";
import { announceEventsCte, BUS_CHANNEL_LITERAL } from "../event-bus.js";

/** A pending event claimed for delivery, with what sending it needs. */
export interface ClaimedEvent extends CapturedRequestFields {
  destinationUrl: string;
  signRequests: boolean;
  secret: string;
  keepProxyHeaders: boolean;
  /** Which attempt this send is (1 for the first): the event's claim count. */
  attempt: number;
  /** The endpoint's retry policy when claimed (null: this attempt's failure is final). */
  retryPolicy: RetryPolicy | null;
}

interface ClaimRow extends CapturedRequestRow {
  destination_url: string;
  sign_requests: boolean;
  secret: string;
  keep_proxy_headers: boolean;
  attempts: number;
  retry_max_attempts: number | null;
  retry_initial_delay_ms: number | null;
  retry_max_delay_ms: number | null;
}

/** The policy from an endpoint's three columns (any null: one attempt). */
export function retryPolicyOf(row: Pick<ClaimRow, "retry_max_attempts" | "retry_initial_delay_ms" | "retry_max_delay_ms">): RetryPolicy | null {
  return retryPolicyFromColumns(row.retry_max_attempts, row.retry_initial_delay_ms, row.retry_max_delay_ms);
}

const toClaimed = (row: ClaimRow): ClaimedEvent => ({
  ...capturedRequest(row),
  destinationUrl: row.destination_url,
  signRequests: row.sign_requests,
  secret: row.secret,
  keepProxyHeaders: row.keep_proxy_headers,
  attempt: row.attempts,
  retryPolicy: retryPolicyOf(row),
});

/*
 * A claim sets a lease: until it expires no other instance takes the event. SKIP LOCKED lets
 * instances claim side by side without waiting on each other's rows. An expired lease (its
 * holder crashed or hung) makes the event claimable again by anyone. An event waiting for its
 * next retry (next_attempt_at) or on a paused endpoint is not due.
 * Fairness: the claim goes endpoint by endpoint. The endpoints with pending events are found
 * by skipping through the pending index (one probe per endpoint, however long its backlog);
 * paused ones and those the claiming instance has no free slot for ($4) are left out before
 * any of their events is read, and each of the others gives at most $5 of its oldest due
 * events. The oldest $1 of those are taken, so one endpoint's backlog cannot fill the claim
 * while others wait behind it.
 * A claim is cut at $3 body bytes (the first event always goes): bodies may be 10 MiB each,
 * and the claimed ones are held in memory until sent. Rows locked past the cuts are let go
 * at commit, unleased, for the next claim.
 */
const CLAIM_DUE = `
with recursive busy(endpoint_id) as (
  (select endpoint_id from events where status = 'pending' order by endpoint_id limit 1)
  union all
  select (select e.endpoint_id from events e where e.status = 'pending' and e.endpoint_id > b.endpoint_id order by e.endpoint_id limit 1)
  from busy b where b.endpoint_id is not null
),
candidates as (
  select c.id, c.size from busy b
  join endpoints p on p.id = b.endpoint_id and p.forwarding_paused_at is null and p.id <> all($4::uuid[])
  cross join lateral (
    select e.id, octet_length(e.body) as size from events e
    where e.endpoint_id = p.id and e.status = 'pending' and (e.lease_expires_at is null or e.lease_expires_at < now())
      and (e.next_attempt_at is null or e.next_attempt_at <= now())
    order by e.id
    limit coalesce($5::int, $1)
    for update of e skip locked
  ) c
  order by c.id
  limit $1
),
claimable as (${byteBoundedIds("select id, size from candidates", "$3")})
update events e
set lease_expires_at = now() + make_interval(secs => $2::float8 / 1000), attempts = e.attempts + 1
from claimable c, endpoints p
where e.id = c.id and p.id = e.endpoint_id
returning e.id, e.endpoint_id, e.method, e.path, e.query, e.headers, e.body, e.destination_url,
          p.sign_requests, p.secret, p.keep_proxy_headers,
          e.attempts, p.retry_max_attempts, p.retry_initial_delay_ms, p.retry_max_delay_ms`;

/** How a claim shares itself between endpoints. */
export interface ClaimFairness {
  /** Most events taken per endpoint (unset: no limit). */
  perEndpoint?: number;
  /** Endpoints left out of this claim (the claimer has no free slot for them). */
  skipEndpoints?: string[];
}

/**
 * Claims pending events nobody holds (missed fast paths, expired leases, handed-back events),
 * oldest first: up to `limit` of them and about `maxBytes` of bodies (at least one event when
 * any is due), at most `perEndpoint` per endpoint, none of `skipEndpoints`.
 */
export async function claimDueEvents(
  pool: Pool,
  limit: number,
  leaseMs: number,
  maxBytes = BODY_BYTES_PER_READ,
  fairness: ClaimFairness = {},
): Promise<ClaimedEvent[]> {
  const result = await pool.query<ClaimRow>({
    name: "rehook_claim_due",
    text: CLAIM_DUE,
    values: [limit, leaseMs, maxBytes, fairness.skipEndpoints ?? [], fairness.perEndpoint ?? null],
  });
  // RETURNING follows no order: oldest first, so each endpoint's backlog is sent in the order it came.
  return result.rows.map(toClaimed).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/*
 * Gives back leases taken for events that were not sent (the holder had no room to keep them
 * waiting, or kept them too long to send safely): they become claimable at once instead of
 * when the lease expires, and the lease's count in attempts is undone (nothing was sent).
 * A retry held in memory is given back with its count kept ($3 = 0): its attempt was made.
 * Only the holder's own claim is given back: the same attempt number and a lease still
 * running. A hand-back that comes late, after the lease expired and someone else claimed the
 * event, matches nothing and leaves that claim alone.
 */
const HAND_BACK = `
update events e set lease_expires_at = null, attempts = greatest(e.attempts - $3::int, 0)
from unnest($1::uuid[], $2::int[]) as h(id, attempt)
where e.id = h.id and e.attempts = h.attempt and e.status = 'pending' and e.lease_expires_at > now()`;

/** An event's claim: the event with the attempt number its lease was taken for. */
export interface LeaseClaim {
  id: string;
  attempt: number;
}

/**
 * Gives back claims. `sent`: the claimed attempt was made (a retry held in memory), so the
 * attempt count stays; otherwise nothing went out and the claim's count is undone.
 */
export async function handBackLeases(pool: Pool, claims: LeaseClaim[], options: { sent?: boolean } = {}): Promise<void> {
  if (claims.length === 0) return;
  await pool.query({
    name: "rehook_hand_back_leases",
    text: HAND_BACK,
    values: [claims.map((claim) => claim.id), claims.map((claim) => claim.attempt), options.sent ? 0 : 1],
  });
}

/*
 * Takes the next attempt of failed events this instance kept in memory for their retry (it
 * still holds their leases, set by the completion): one statement, no body read back. An
 * event changed meanwhile (retried by hand, or its lease gone) is not returned; one whose
 * endpoint was paused meanwhile is given back unleased, to wait for the resume.
 */
const RECLAIM_HELD = `
with target as (
  select e.id, p.forwarding_paused_at is null as open
  from unnest($1::uuid[], $2::int[]) as h(id, attempt)
  join events e on e.id = h.id and e.attempts = h.attempt
  join endpoints p on p.id = e.endpoint_id
  where e.status = 'pending' and e.lease_expires_at > now()
  order by e.id
  for update of e
)
update events e
set attempts = e.attempts + case when t.open then 1 else 0 end,
    lease_expires_at = case when t.open then now() + make_interval(secs => $3::float8 / 1000) end
from target t, endpoints p
where e.id = t.id and p.id = e.endpoint_id
returning e.id, t.open, e.attempts, p.retry_max_attempts, p.retry_initial_delay_ms, p.retry_max_delay_ms`;

/** A held retry re-claimed: its new attempt number and the endpoint's policy now. */
export interface ReclaimedRetry {
  id: string;
  attempt: number;
  retryPolicy: RetryPolicy | null;
}

/** Re-claims held retries now due (see RECLAIM_HELD); answers those to send. */
export async function reclaimHeldRetries(pool: Pool, claims: LeaseClaim[], leaseMs: number): Promise<ReclaimedRetry[]> {
  if (claims.length === 0) return [];
  const result = await pool.query<{ id: string; open: boolean; attempts: number } & Pick<ClaimRow, "retry_max_attempts" | "retry_initial_delay_ms" | "retry_max_delay_ms">>({
    name: "rehook_reclaim_held",
    text: RECLAIM_HELD,
    values: [claims.map((claim) => claim.id), claims.map((claim) => claim.attempt), leaseMs],
  });
  return result.rows.filter((row) => row.open).map((row) => ({ id: row.id, attempt: row.attempts, retryPolicy: retryPolicyOf(row) }));
}

/** The outcome of one delivery attempt, to be stored on its event. */
export interface DeliveryOutcome {
  id: string;
  /** Which attempt this was (ClaimedEvent.attempt): a result from an older claim is ignored. */
  attempt: number;
  /** How this attempt went. */
  status: Extract<EventStatus, "delivered" | "failed">;
  /** After a failed attempt with attempts left: wait this long, pending, before the next (null: final). */
  retryInMs: number | null;
  /** The retry is kept in memory by the sender: its lease runs this much longer than the wait (null: let go). */
  holdLeaseMs?: number | null;
  /** When the attempt started (epoch ms). */
  startedAt: number;
  latencyMs: number;
  responseStatus: number | null;
  responseHeaders: HeaderList | null;
  responseBody: Buffer | null;
  responseTruncated: boolean;
  error: string | null;
}

export interface CompletedEvent {
  /** This batch tripped the endpoint's circuit breaker: events of it held in memory must not be sent. */
  pausedNow?: boolean;
  id: string;
  endpointId: string;
  /** The endpoint's owner: live feeds filter the bus by it without a query. */
  teamId: string;
  /** delivered or failed, or pending with a retry scheduled. */
  status: EventStatus;
}

/** The histogram's bounds as an array literal (from core's constant: no input reaches it). */
const LATENCY_BOUNDS = `{${LATENCY_BUCKET_BOUNDS_MS.join(",")}}`;

/*
 * One statement stores a batch of attempts: each as a delivery_attempts row, its result on
 * the event (pending again with next_attempt_at when a retry is due, else delivered or
 * failed), the endpoints' counters of final outcomes and the circuit breaker, so neither
 * health nor the breaker ever drifts from the events. Only the attempt the event's current
 * claim made is stored: a late result of an older claim (its lease expired and the event was
 * claimed again) changes nothing, and a second delivery after an expired lease changes
 * neither the event nor the counts.
 * The breaker counts consecutive failed attempts per endpoint: a delivered attempt in the
 * batch restarts the count from the failures that started after it. The endpoints are
 * locked before they are judged, so concurrent batches from several instances add up.
 */
const COMPLETE = `
with r as (
  select * from json_to_recordset($1::json) as t(
    id uuid, attempt int, status text, retry_in_ms float8, hold_lease_ms float8, started_at float8, latency_ms int, response_status int,
    response_headers json, body_offset int, body_size int, response_truncated boolean, error text, failure text
  )
),
updated as (
  update events e
  set status = case when r.status = 'failed' and r.retry_in_ms is not null then 'pending' else r.status end,
      next_attempt_at = case when r.status = 'failed' and r.retry_in_ms is not null then now() + make_interval(secs => r.retry_in_ms / 1000) end,
      forwarded_at = to_timestamp(r.started_at / 1000), latency_ms = r.latency_ms, response_status = r.response_status,
      response_headers = r.response_headers,
      response_body = case when r.body_size is null then null else substring($2::bytea from r.body_offset + 1 for r.body_size) end,
      response_truncated = r.response_truncated, error = r.error,
      completed_at = case when r.status = 'failed' and r.retry_in_ms is not null then null else now() end,
      -- A retry the sender keeps in memory stays leased to it until well after it is due.
      lease_expires_at = case when r.status = 'failed' and r.retry_in_ms is not null and r.hold_lease_ms is not null
                              then now() + make_interval(secs => (r.retry_in_ms + r.hold_lease_ms) / 1000) end
  from r
  where e.id = r.id and e.status = 'pending' and e.attempts = r.attempt
  returning e.id, e.endpoint_id, e.status, r.attempt, r.status as outcome, r.started_at, r.failure
),
-- Events that left pending move between the endpoint's status counts (event_counts).
recounted as (
  insert into event_counts (endpoint_id, status, n)
  select endpoint_id, status, sum(delta) from (
    select endpoint_id, status, 1 as delta from updated where status <> 'pending'
    union all
    select endpoint_id, 'pending', -1 from updated where status <> 'pending'
  ) moves
  group by endpoint_id, status
),
-- The charts' rollups, at now's minute: final outcomes (event_minutes), and every attempt's
-- latency by histogram bucket (latency_minutes); appended, never updated in place.
charted as (
  insert into event_minutes (endpoint_id, minute, delivered, failed)
  select endpoint_id, date_trunc('minute', now()), count(*) filter (where status = 'delivered'), count(*) filter (where status = 'failed')
  from updated where status <> 'pending'
  group by endpoint_id
),
timed as (
  insert into latency_minutes (endpoint_id, minute, bucket, n)
  select u.endpoint_id, date_trunc('minute', now()), width_bucket(r.latency_ms, '${LATENCY_BOUNDS}'::int[]), count(*)
  from r join updated u on u.id = r.id
  group by 1, 3
),
recorded as (
  insert into delivery_attempts (event_id, attempt, started_at, latency_ms, response_status, response_headers, response_body,
                                 response_truncated, error, outcome)
  select r.id, r.attempt, to_timestamp(r.started_at / 1000), r.latency_ms, r.response_status, r.response_headers,
         case when r.body_size is null then null else substring($2::bytea from r.body_offset + 1 for r.body_size) end,
         r.response_truncated, r.error, r.status
  from r join updated u on u.id = r.id
),
attempted as (
  select u.*, max(u.started_at) filter (where u.outcome = 'delivered') over (partition by u.endpoint_id) as last_delivered
  from updated u
),
tallies as (
  select endpoint_id,
         count(*) filter (where status = 'delivered') as delivered,
         count(*) filter (where status = 'failed') as failed,
         bool_or(outcome = 'delivered') as any_delivered,
         count(*) filter (where outcome = 'failed' and (last_delivered is null or started_at > last_delivered)) as failures,
         (array_agg(failure order by started_at desc) filter (where outcome = 'failed'))[1] as last_failure,
         (array_agg(id order by started_at desc) filter (where outcome = 'failed'))[1] as last_failed_id
  from attempted group by endpoint_id
),
locked as (
  select p.id, p.team_id, p.consecutive_failures, p.pause_after_failures, p.forwarding_paused_at from endpoints p
  where p.id in (select endpoint_id from tallies)
  order by p.id
  for no key update
),
judged as (
  select t.*, l.team_id, c.consecutive,
         l.pause_after_failures is not null and l.forwarding_paused_at is null and c.consecutive >= l.pause_after_failures as trips
  from tallies t join locked l on l.id = t.endpoint_id,
       lateral (select case when t.any_delivered then t.failures else l.consecutive_failures + t.failures end as consecutive) c
),
counted as (
  update endpoints p
  set delivered_count = p.delivered_count + j.delivered, failed_count = p.failed_count + j.failed,
      consecutive_failures = j.consecutive,
      forwarding_paused_at = case when j.trips then now() else p.forwarding_paused_at end,
      paused_reason = case when j.trips then format('%s consecutive failed attempts (last: %s)', j.consecutive, j.last_failure) else p.paused_reason end
  from judged j
  where p.id = j.endpoint_id
),
-- Chat notifications for these statuses are due in the same transaction (outbox); final outcomes only.
notify as (
  insert into notification_outbox (team_id, event_id, trigger)
  select n.team_id, u.id, u.status
  from updated u join endpoints p on p.id = u.endpoint_id join notification_settings n on n.team_id = p.team_id
  where n.enabled and n.paused_reason is null and u.status = any(n.triggers)
  union all
  -- A tripped breaker is always announced when notifications are on (whatever the triggers).
  select n.team_id, j.last_failed_id, 'paused'
  from judged j join notification_settings n on n.team_id = j.team_id
  where j.trips and n.enabled and n.paused_reason is null
  returning team_id
),
notify_jobs as (${enqueueNotifyJobs("select team_id from notify")}),
stored as (select u.id, u.endpoint_id, p.team_id, u.status from updated u join endpoints p on p.id = u.endpoint_id),
-- The live feeds of every instance hear of the new statuses (event.status) at commit, as they hear of captures.
${announceEventsCte({ rows: "stored", type: "event.status", status: "status", channel: BUS_CHANNEL_LITERAL })}
select s.id, s.endpoint_id, s.team_id, s.status, coalesce(j.trips, false) as paused_now, (select count(*) from announced) as announced
from stored s left join judged j on j.endpoint_id = s.endpoint_id`;

/** How a failed attempt reads in the breaker's paused_reason. */
function failureText(outcome: DeliveryOutcome): string | null {
  if (outcome.status !== "failed") return null;
  if (outcome.responseStatus !== null) return `destination answered ${outcome.responseStatus}`;
  return outcome.error ?? "unknown error";
}

export async function completeEvents(pool: Pool, outcomes: DeliveryOutcome[]): Promise<CompletedEvent[]> {
  let offset = 0;
  const bodies: Buffer[] = [];
  const rows = outcomes.map((o) => {
    const size = o.responseBody?.byteLength ?? null;
    const row = {
      id: o.id,
      attempt: o.attempt,
      status: o.status,
      retry_in_ms: o.status === "failed" ? o.retryInMs : null,
      hold_lease_ms: o.holdLeaseMs ?? null,
      started_at: o.startedAt,
      latency_ms: o.latencyMs,
      response_status: o.responseStatus,
      response_headers: o.responseHeaders,
      body_offset: offset,
      body_size: size,
      response_truncated: o.responseTruncated,
      error: o.error,
      failure: failureText(o),
    };
    if (o.responseBody) {
      bodies.push(o.responseBody);
      offset += o.responseBody.byteLength;
    }
    return row;
  });
  const result = await pool.query<{ id: string; endpoint_id: string; team_id: string; status: EventStatus; paused_now: boolean }>({
    name: "rehook_complete_events",
    text: COMPLETE,
    values: [JSON.stringify(rows), Buffer.concat(bodies, offset)],
  });
  return result.rows.map((row) => ({
    id: row.id,
    endpointId: row.endpoint_id,
    teamId: row.team_id,
    status: row.status,
    ...(row.paused_now ? { pausedNow: true } : {}),
  }));
}
