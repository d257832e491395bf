import { LATENCY_BUCKET_BOUNDS_MS, retryPolicyFromColumns, type EventStatus, type HeaderList, type RetryPolicy } from "@rehook/core";
import { withTransaction, type Pool } from "../pool.js";
import { capturedRequest, type CapturedRequestFields, type CapturedRequestRow } from "./captured-request.js";
import { BODY_BYTES_PER_READ, byteBoundedIds } from "./events.js";
import { COMPLETION_ALERTS_CTE } from "./alerts.js";
import { UUIDV7_SQL } from "./audit-log.js";
import { enqueueNotifyJobs } from "../jobs/queue.js";
import { announceEventsCte, BUS_CHANNEL_LITERAL } from "../event-bus.js";
import { STATUS_MOVES } from "./event-status.js";

/*
 * Forwarding's queue is `deliveries`: one row per event and destination its filter let
 * through. A delivery is claimed with a lease, sent, and completed on its own; the event's
 * status sums its deliveries up (see eventStatusOf in COMPLETE).
 */

/** A delivery's identity: its event and destination. */
export interface DeliveryRef {
  id: string;
  destinationId: string;
}

/**
 * A lease on one pending delivery: whoever holds it sends that delivery's next attempt, and
 * only its result (or its hand-back) for that attempt is stored. Every lease the dispatcher
 * holds, from the capture's fast path, a claim or a kept retry, and every result or hand-back
 * it stores, is one of these.
 *
 * Where it is held (`heldOn`): on the delivery's row (`lease_expires_at`), or, for an event's
 * only delivery taken by the capture's fast path, on the event row (`events.fast_path_*`) with
 * no delivery row until its result, hand-back or expiry writes one. Capture then writes one row
 * for a one-destination event, as it did before routing (see the fast_path_lease migration and
 * docs/forwarding.md). Both kinds answer to the same rules; the statements below take each from
 * where it is held.
 */
export interface DeliveryLease extends DeliveryRef {
  /** Which attempt the lease is for (1 for the first): a result or hand-back of another attempt changes nothing. */
  attempt: number;
  heldOn: "delivery" | "event";
  /** It holds its destination's one send of a half-open breaker (destinations.probe_event_id); only a claim takes that. */
  probe: boolean;
}

/** A pending delivery leased for sending, with what sending it needs. */
export interface ClaimedDelivery extends CapturedRequestFields, DeliveryLease {
  destinationUrl: string;
  signRequests: boolean;
  secret: string;
  keepProxyHeaders: boolean;
  /** The destination's retry policy when claimed (null: this attempt's failure is final). */
  retryPolicy: RetryPolicy | null;
  /** The destination's rate limit (null: none): its deliveries, retries too, are claimed through the database, where the limit is counted. */
  ratePerSecond: number | null;
  /**
   * The destination has a circuit breaker (pause_after_failures): after a failed attempt it is
   * half-open and sends one at a time, so its deliveries are then sent only as probes, and its
   * retries are not kept in memory.
   */
  breaker: boolean;
  /**
   * When the statement that took the lease was sent (epoch ms): the send deadline counts from it,
   * and a lease taken before a failure of its destination was stored may predate the half-open
   * breaker (see the dispatcher).
   */
  takenAt: number;
  /** A paced destination's slot: how long after its claim it may start (absent: at once). */
  startInMs?: number;
  /**
   * The event has deliveries to other destinations too: completing this one must sum them up
   * under the event's lock (see LOCK_EVENTS). Fixed at capture, which stores every delivery.
   */
  otherDeliveries: boolean;
}

/** The lease alone, as hand-backs and results name it. */
export const leaseOf = ({ id, destinationId, attempt, heldOn, probe }: DeliveryLease): DeliveryLease => ({ id, destinationId, attempt, heldOn, probe });

/** The key a delivery is known by in memory. */
export const deliveryKey = (delivery: DeliveryRef): string => `${delivery.id}/${delivery.destinationId}`;

interface RetryColumns {
  retry_max_attempts: number | null;
  retry_initial_delay_ms: number | null;
  retry_max_delay_ms: number | null;
}

interface ClaimRow extends CapturedRequestRow, RetryColumns {
  destination_id: string;
  url: string;
  sign_requests: boolean;
  secret: string;
  keep_proxy_headers: boolean;
  attempts: number;
  rate_limit_per_second: number | null;
  start_in_ms?: number;
  other_deliveries: boolean;
  breaker: boolean;
  probe: boolean;
}

/** The policy from a destination's three columns (any null: one attempt). */
export function retryPolicyOf(row: RetryColumns): RetryPolicy | null {
  return retryPolicyFromColumns(row.retry_max_attempts, row.retry_initial_delay_ms, row.retry_max_delay_ms);
}

const toClaimed = (row: ClaimRow, takenAt: number): ClaimedDelivery => ({
  ...capturedRequest(row),
  destinationId: row.destination_id,
  heldOn: "delivery",
  probe: row.probe,
  breaker: row.breaker,
  takenAt,
  destinationUrl: row.url,
  signRequests: row.sign_requests,
  secret: row.secret,
  keepProxyHeaders: row.keep_proxy_headers,
  attempt: row.attempts,
  retryPolicy: retryPolicyOf(row),
  ratePerSecond: row.rate_limit_per_second,
  ...(row.start_in_ms ? { startInMs: Math.max(0, row.start_in_ms) } : {}),
  otherDeliveries: row.other_deliveries,
});

/*
 * A claim sets a lease: until it expires no other instance takes the delivery. SKIP LOCKED
 * lets instances claim side by side. An expired lease (its holder crashed or hung) makes the
 * delivery claimable again by anyone. One waiting for its next retry (next_attempt_at), or
 * whose destination is paused or disabled, is not due.
 * Fairness: the claim goes destination by destination. The destinations with pending
 * deliveries are found by skipping through the pending index (one probe per destination,
 * however long its backlog); paused and disabled ones and those the claiming instance has no
 * free slot for ($4) are left out before any delivery is read, and each of the others gives
 * at most $5 of its oldest due deliveries. The oldest $1 of those are taken.
 * Locked destinations: paced ones and those with a circuit breaker are read under their row
 * lock, in id order, as committed now rather than as the statement's snapshot saw them (a
 * failure stored a moment ago makes the breaker half-open; a pause stops the claim): the
 * completion takes the same lock to judge the breaker, so a claim and a completion of one
 * destination are never interleaved.
 * Half-open breaker (core's breakerPosition: a breaker and failed attempts in a row): one
 * delivery at a time across every instance. The claim takes the destination's oldest due
 * delivery only while no other holds its probe slot (probe_event_id, or that lease expired),
 * and gives the slot to it; its completion or hand-back frees it.
 * Pace: a rate-limited destination keeps a schedule on its row, the earliest moment its next
 * delivery may start. A claim books the slots from there (never before now), 1/rate apart, that
 * fall within the next $6 ms, one per delivery taken, and moves the schedule past them; each
 * delivery is answered with its slot (start_in_ms), and the claimer starts it then. The schedule
 * is read and moved under the destination's row lock, so instances claiming at once book
 * disjoint slots, and no two starts are closer than 1/rate: any one second holds the limit at most
 * (give or take the claimers' timer jitter), with no burst at a window's edge and no dependence on
 * how often anyone claims.
 * Order: an ordered destination gives its oldest pending delivery only, and only when that
 * one is due and nobody holds it: a delivery waiting for its retry holds back the ones after
 * it. Its head is read without SKIP LOCKED (skipping it would send the next one first); the
 * update re-checks the lease, so of two instances only one takes it.
 * A claim is cut at $3 body bytes (the first delivery always goes): bodies may be 10 MiB
 * each, and the claimed ones are held in memory until sent.
 */
const CLAIM_DUE = `
with recursive busy(destination_id) as (
  (select destination_id from deliveries where status = 'pending' order by destination_id limit 1)
  union all
  select (select d.destination_id from deliveries d where d.status = 'pending' and d.destination_id > b.destination_id order by d.destination_id limit 1)
  from busy b where b.destination_id is not null
),
open as (
  select t.id, t.ordered, t.rate_limit_per_second is not null or t.pause_after_failures is not null as guarded
  from busy b join destinations t on t.id = b.destination_id
  where t.enabled and t.forwarding_paused_at is null and t.id <> all($4::uuid[])
),
-- Paced and breaker-guarded destinations as committed now, locked: the next free start (never
-- before now) of a paced one, whether a breaker is half-open and its probe slot free.
locked as (
  select t.id, t.rate_limit_per_second as rate, greatest(coalesce(t.rate_next_start_at, now()), now()) as next_start,
         t.enabled and t.forwarding_paused_at is null as still_open,
         t.pause_after_failures is not null and t.consecutive_failures > 0 as half_open,
         t.probe_event_id is null or t.probe_lease_expires_at is null or t.probe_lease_expires_at < now() as probe_free
  from destinations t where t.id in (select id from open where guarded)
  order by t.id
  for no key update of t
),
-- What each may take now: a paced one the starts, 1/rate apart, that fall within the look-ahead
-- ($6 ms); a half-open one its probe, if the slot is free; one paused meanwhile nothing (null: no bound).
windows as (
  select id, rate, next_start, half_open,
         case when not still_open or (half_open and not probe_free) then 0
              else least(case when half_open then 1 end,
                         case when rate is not null then greatest(0, ceil(extract(epoch from now() + make_interval(secs => $6::float8 / 1000) - next_start) * rate))::int end)
         end as allowance
  from locked
),
candidates as (
  select c.event_id, c.destination_id from open o
  left join windows w on w.id = o.id
  cross join lateral (
    select d.event_id, d.destination_id from deliveries d
    where d.destination_id = o.id and d.status = 'pending' and (d.lease_expires_at is null or d.lease_expires_at < now())
      and (d.next_attempt_at is null or d.next_attempt_at <= now())
    order by d.event_id
    limit least(coalesce($5::int, $1), coalesce(w.allowance, $1))
    for update of d skip locked
  ) c
  where not o.ordered
  union all
  select h.event_id, h.destination_id from open o
  left join windows w on w.id = o.id
  cross join lateral (
    select d.event_id, d.destination_id, d.lease_expires_at, d.next_attempt_at from deliveries d
    where d.destination_id = o.id and d.status = 'pending'
    order by d.event_id limit 1
  ) h
  where o.ordered and coalesce(w.allowance, 1) > 0
    and (h.lease_expires_at is null or h.lease_expires_at < now()) and (h.next_attempt_at is null or h.next_attempt_at <= now())
),
sized as (
  select c.event_id as id, c.destination_id, octet_length(e.body) as size
  from candidates c join events e on e.id = c.event_id
  order by c.event_id
  limit $1
),
claimable as (select s.id, s.destination_id from sized s where s.id in (${byteBoundedIds("select id, size from sized", "$3")})),
claimed as (
  update deliveries d
  set lease_expires_at = now() + make_interval(secs => $2::float8 / 1000), attempts = d.attempts + 1
  from claimable c
  where d.event_id = c.id and d.destination_id = c.destination_id
    and d.status = 'pending' and (d.lease_expires_at is null or d.lease_expires_at < now())
  returning d.event_id, d.destination_id, d.attempts, d.lease_expires_at
),
-- The locked destinations a delivery was taken from: a paced one's schedule moves past the
-- booked slots; a half-open one's probe slot goes to its delivery, for that delivery's lease.
booked as (
  update destinations t
  set rate_next_start_at = case when w.rate is null then t.rate_next_start_at else w.next_start + make_interval(secs => n.taken::float8 / w.rate) end,
      probe_event_id = case when w.half_open then n.first_event else t.probe_event_id end,
      probe_lease_expires_at = case when w.half_open then n.lease_expires_at else t.probe_lease_expires_at end
  from windows w
  join (select destination_id, count(*) as taken, (array_agg(event_id))[1] as first_event, max(lease_expires_at) as lease_expires_at
        from claimed group by destination_id) n on n.destination_id = w.id
  where t.id = w.id
),
-- Each paced delivery gets its own slot, in event order: the k-th starts k/rate after the next free start.
slotted as (
  select c.*, coalesce(w.half_open, false) as probe,
         case when w.rate is null then 0
              else extract(epoch from w.next_start - now()) * 1000
                   + (row_number() over (partition by c.destination_id order by c.event_id) - 1) * 1000.0 / w.rate end as start_in_ms
  from claimed c left join windows w on w.id = c.destination_id
)
select e.id, e.endpoint_id, e.method, e.path, e.query, e.headers, e.body, c.destination_id, t.url,
       p.sign_requests, p.secret, p.keep_proxy_headers, c.attempts, t.retry_max_attempts, t.retry_initial_delay_ms, t.retry_max_delay_ms,
       t.rate_limit_per_second, c.start_in_ms::float8 as start_in_ms, t.pause_after_failures is not null as breaker, c.probe,
       exists (select 1 from deliveries o where o.event_id = c.event_id and o.destination_id <> c.destination_id) as other_deliveries
from slotted c join events e on e.id = c.event_id join destinations t on t.id = c.destination_id join endpoints p on p.id = e.endpoint_id`;

/**
 * How far ahead a claim books a rate-limited destination's start slots. Booked slots are held in
 * the claimer's memory until their time, so a claim every half of this keeps the pace without
 * gaps, and the bound on what waits is rate × look-ahead per destination (within the claimer's room).
 */
export const PACED_LOOKAHEAD_MS = 1_000;

/** How a claim shares itself between destinations. */
export interface ClaimFairness {
  /** Most deliveries taken per destination (unset: no limit). */
  perDestination?: number;
  /** Destinations left out of this claim (the claimer has no free slot for them). */
  skipDestinations?: string[];
}

/** Oldest first by event, then by destination: each destination's backlog is sent in the order it came. */
const byEventThenDestination = (a: ClaimedDelivery, b: ClaimedDelivery) =>
  a.id < b.id ? -1 : a.id > b.id ? 1 : a.destinationId < b.destinationId ? -1 : a.destinationId > b.destinationId ? 1 : 0;

/**
 * Claims due deliveries nobody holds (paced and ordered destinations, missed fast paths,
 * expired leases, handed-back deliveries), oldest first: up to `limit` of them and about
 * `maxBytes` of bodies (at least one when any is due), at most `perDestination` per
 * destination, none of `skipDestinations`.
 */
export async function claimDueDeliveries(
  pool: Pool,
  limit: number,
  leaseMs: number,
  maxBytes = BODY_BYTES_PER_READ,
  fairness: ClaimFairness = {},
): Promise<ClaimedDelivery[]> {
  const takenAt = Date.now();
  const result = await pool.query<ClaimRow>({
    name: "rehook_claim_due",
    text: CLAIM_DUE,
    values: [limit, leaseMs, maxBytes, fairness.skipDestinations ?? [], fairness.perDestination ?? null, PACED_LOOKAHEAD_MS],
  });
  return result.rows.map((row) => toClaimed(row, takenAt)).sort(byEventThenDestination);
}

/*
 * Gives back leases taken for deliveries that were not sent (the holder had no room to keep
 * them waiting, or kept them too long to send safely): they become claimable at once, and
 * the lease's count in attempts is undone (nothing was sent). A retry held in memory is
 * given back with its count kept ($4 = 0): its attempt was made. Only the holder's own claim
 * is given back: the same attempt number and a lease still running. A probe gives its
 * destination's probe slot back with it.
 */
const HAND_BACK = `
with back as (
  update deliveries d set lease_expires_at = null, attempts = greatest(d.attempts - $4::int, 0)
  from unnest($1::uuid[], $2::uuid[], $3::int[], $5::boolean[]) as h(event_id, destination_id, attempt, probe)
  where d.event_id = h.event_id and d.destination_id = h.destination_id and d.attempts = h.attempt
    and d.status = 'pending' and d.lease_expires_at > now()
  returning d.event_id, d.destination_id, h.probe
)
update destinations t set probe_event_id = null, probe_lease_expires_at = null
from back b where b.probe and t.id = b.destination_id and t.probe_event_id = b.event_id`;

const leaseArrays = (leases: DeliveryLease[]) => [leases.map((c) => c.id), leases.map((c) => c.destinationId), leases.map((c) => c.attempt)];

/** The assignment that takes a fast-path lease off its event (see the fast_path_lease migration). */
export const CLEAR_EVENT_LEASE = "fast_path_destination_id = null, fast_path_lease_expires_at = null";

/*
 * Moves fast-path leases from their events to delivery rows: the events `leases` selects (id,
 * endpoint_id, destination_id; locked by it) lose their lease, and each delivery gets its row,
 * pending and unleased, with `attempts` counted. A row written meanwhile (the holder's result)
 * wins. Answers how many rows were written.
 */
const leasesToRows = (leases: string, attempts: 0 | 1) => `
with leases as (${leases}),
cleared as (update events e set ${CLEAR_EVENT_LEASE} from leases l where e.id = l.id),
queued as (
  insert into deliveries (event_id, destination_id, endpoint_id, status, attempts)
  select id, destination_id, endpoint_id, 'pending', ${attempts} from leases
  on conflict do nothing
  returning event_id
)
select count(*)::int as n from queued`;

/*
 * Gives back fast-path leases held on events (unsent: a retry is never held on the event, its
 * failure wrote the row): no attempt counted. An event whose lease is gone already (expired and
 * taken over) is left alone.
 */
const HAND_BACK_FROM_EVENTS = leasesToRows(
  `select e.id, e.endpoint_id, e.fast_path_destination_id as destination_id
   from events e join unnest($1::uuid[], $2::uuid[]) as h(event_id, destination_id) on e.id = h.event_id and e.fast_path_destination_id = h.destination_id
   for no key update of e`,
  0,
);

/**
 * Gives back leases. `sent`: the leased attempt was made (a retry held in memory), so the
 * attempt count stays; otherwise nothing went out and the lease's count is undone.
 */
export async function handBackLeases(pool: Pool, leases: DeliveryLease[], options: { sent?: boolean } = {}): Promise<void> {
  const onEvents = leases.filter((lease) => lease.heldOn === "event");
  const onRows = leases.filter((lease) => lease.heldOn === "delivery");
  if (onEvents.length > 0) {
    await pool.query({ name: "rehook_hand_back_event_leases", text: HAND_BACK_FROM_EVENTS, values: leaseArrays(onEvents).slice(0, 2) });
  }
  if (onRows.length > 0) {
    await pool.query({
      name: "rehook_hand_back_leases",
      text: HAND_BACK,
      values: [...leaseArrays(onRows), options.sent ? 0 : 1, onRows.map((lease) => lease.probe)],
    });
  }
}

/*
 * Fast-path leases on events whose holder never answered (it crashed, or lost its database):
 * once expired, their attempt is counted (it may have been sent), for any instance's claim to
 * take as its next attempt. SKIP LOCKED: an event being completed or handed back right now is
 * left to that.
 */
const ADOPT_EXPIRED_EVENT_LEASES = leasesToRows(
  `select e.id, e.endpoint_id, e.fast_path_destination_id as destination_id from events e
   where e.fast_path_destination_id is not null and e.fast_path_lease_expires_at < now()
   order by e.fast_path_lease_expires_at
   limit $1
   for no key update of e skip locked`,
  1,
);

/** Turns up to `limit` expired fast-path leases on events into claimable deliveries; answers how many. */
export async function adoptExpiredEventLeases(pool: Pool, limit: number): Promise<number> {
  const result = await pool.query<{ n: number }>({ name: "rehook_adopt_event_leases", text: ADOPT_EXPIRED_EVENT_LEASES, values: [limit] });
  return result.rows[0]!.n;
}

/*
 * Takes the next attempt of failed deliveries this instance kept in memory for their retry
 * (it still holds their leases, set by the completion): one statement, no body read back.
 * One changed meanwhile (retried by hand, or its lease gone) is not returned; one whose
 * destination was paused or disabled meanwhile, or whose breaker is half-open (its sends go one
 * at a time, as probes only a claim takes), is given back unleased, to wait.
 */
const RECLAIM_HELD = `
with target as (
  select d.event_id, d.destination_id,
         t.forwarding_paused_at is null and t.enabled and not (t.pause_after_failures is not null and t.consecutive_failures > 0) as open
  from unnest($1::uuid[], $2::uuid[], $3::int[]) as h(event_id, destination_id, attempt)
  join deliveries d on d.event_id = h.event_id and d.destination_id = h.destination_id and d.attempts = h.attempt
  join destinations t on t.id = d.destination_id
  where d.status = 'pending' and d.lease_expires_at > now()
  order by d.event_id, d.destination_id
  for update of d
)
update deliveries d
set attempts = d.attempts + case when x.open then 1 else 0 end,
    lease_expires_at = case when x.open then now() + make_interval(secs => $4::float8 / 1000) end
from target x, destinations t
where d.event_id = x.event_id and d.destination_id = x.destination_id and t.id = d.destination_id
returning d.event_id, d.destination_id, x.open, d.attempts, t.retry_max_attempts, t.retry_initial_delay_ms, t.retry_max_delay_ms`;

/** A held retry re-claimed: its new attempt number and the destination's policy now. */
export interface ReclaimedRetry extends DeliveryRef {
  attempt: number;
  retryPolicy: RetryPolicy | null;
}

/** Re-claims held retries now due (see RECLAIM_HELD); answers those to send. */
export async function reclaimHeldRetries(pool: Pool, claims: DeliveryLease[], leaseMs: number): Promise<ReclaimedRetry[]> {
  if (claims.length === 0) return [];
  const result = await pool.query<{ event_id: string; destination_id: string; open: boolean; attempts: number } & RetryColumns>({
    name: "rehook_reclaim_held",
    text: RECLAIM_HELD,
    values: [...leaseArrays(claims), leaseMs],
  });
  return result.rows
    .filter((row) => row.open)
    .map((row) => ({ id: row.event_id, destinationId: row.destination_id, attempt: row.attempts, retryPolicy: retryPolicyOf(row) }));
}

/**
 * The outcome of one delivery attempt, to be stored on its delivery and event: its lease (an
 * older attempt's result is ignored; one held on the event writes the delivery's row; a probe
 * frees its destination's slot) and what the attempt found.
 */
export interface DeliveryOutcome extends DeliveryLease {
  /** ClaimedDelivery.otherDeliveries: the event's status sums several deliveries. */
  otherDeliveries: boolean;
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

export interface CompletedDelivery extends DeliveryRef {
  /** This batch tripped the destination's circuit breaker: deliveries to it held in memory must not be sent. */
  pausedNow?: boolean;
  endpointId: string;
  /** The endpoint's owner: live feeds filter the bus by it without a query. */
  teamId: string;
  /** The delivery's status now: delivered or failed, or pending with a retry scheduled. */
  status: "pending" | "delivered" | "failed";
  /** The destination is ordered: its next delivery may be claimable now. */
  ordered: boolean;
}

/** The histogram's bounds as an array literal (from core's constant: no input reaches it). */
const LATENCY_BOUNDS = `{${LATENCY_BUCKET_BOUNDS_MS.join(",")}}`;

/**
 * Locks the batch's events that have another delivery (otherDeliveries), in id order, before COMPLETE reads
 * their other deliveries: two instances completing two deliveries of one event then sum it up
 * one after the other, the second seeing the first's result (in one statement both would read
 * the same snapshot). An event with one delivery needs no lock of its own (its sum is that
 * delivery, which COMPLETE's update locks), and most events have one: a row lock is a write.
 */
const LOCK_EVENTS = `
select e.id from events e
where e.id = any($1::uuid[])
order by e.id
for no key update of e`;

/** Frees the probe slot of a destination (`t`) whose probe is among the batch's stored attempts. */
const FREE_PROBE_SLOT = `
      probe_event_id = case when t.probe_event_id in (select event_id from updated x where x.destination_id = t.id) then null else t.probe_event_id end,
      probe_lease_expires_at = case when t.probe_event_id in (select event_id from updated x where x.destination_id = t.id) then null else t.probe_lease_expires_at end`;

const FULL_BREAKERS = `-- The circuit breakers (core's judgeBreaker). A destination with a failed attempt in the batch
-- is locked (as the claim locks it) and judged attempt by attempt, in start order: a failure
-- adds one to its count, a delivery sets it to 0, the Nth failure in a row pauses it, and what
-- comes after that in the batch (sends that were under way) changes nothing, nor does anything
-- while it is paused. A destination whose attempts all delivered only goes back to 0 (unless it
-- is paused): no lock, and no write when it is at 0 already, as it nearly always is.
attempted as (
  select u.destination_id, u.event_id, u.outcome, u.started_at, u.failure,
         bool_or(u.outcome = 'failed') over (partition by u.destination_id) as any_failed
  from updated u
),
locked as (
  select t.id, t.endpoint_id, t.name, t.consecutive_failures, t.pause_after_failures, t.forwarding_paused_at from destinations t
  where t.id in (select destination_id from attempted where any_failed)
  order by t.id
  for no key update
),
-- After each attempt: its place, and the failures in a row up to it (the stored count carried
-- until the batch's first delivered attempt).
steps as (
  select a.*, row_number() over w as step, count(*) filter (where a.outcome = 'delivered') over w as resets
  from attempted a where a.any_failed
  window w as (partition by a.destination_id order by a.started_at, a.event_id rows unbounded preceding)
),
runs as (
  select x.*, l.pause_after_failures, l.forwarding_paused_at,
         count(*) filter (where x.outcome = 'failed') over (partition by x.destination_id, x.resets order by x.step rows unbounded preceding)
           + case when x.resets = 0 then l.consecutive_failures else 0 end as run
  from steps x join locked l on l.id = x.destination_id
),
trips as (
  select distinct on (destination_id) destination_id, event_id, failure, run
  from runs
  where outcome = 'failed' and pause_after_failures is not null and forwarding_paused_at is null and run >= pause_after_failures
  order by destination_id, step
),
judged as (
  select l.id as destination_id, l.endpoint_id, l.name, l.pause_after_failures, p.team_id, t.event_id as tripped_by,
         t.destination_id is not null as trips,
         case when l.forwarding_paused_at is not null then l.consecutive_failures when t.destination_id is not null then t.run else last.run end as consecutive,
         format('%s consecutive failed attempts (last: %s)', t.run, coalesce(t.failure, 'unknown error')) as reason
  from locked l join endpoints p on p.id = l.endpoint_id
  left join trips t on t.destination_id = l.id
  cross join lateral (select r.run from runs r where r.destination_id = l.id order by r.step desc limit 1) last
),
breakers as (
  update destinations t
  set consecutive_failures = j.consecutive,
      forwarding_paused_at = case when j.trips then now() else t.forwarding_paused_at end,
      paused_reason = case when j.trips then j.reason else t.paused_reason end,
      ${FREE_PROBE_SLOT}
  from judged j
  where t.id = j.destination_id
),
`;

const LEAN_BREAKERS = `-- The circuit breakers (core's judgeBreaker): every attempt of this batch was delivered, so each
-- destination goes back to 0 (unless it is paused) and a probe among them frees its slot. No lock,
-- and no write when the count is 0 already, as it nearly always is.
attempted as (select distinct destination_id, false as any_failed from updated),
`;

/** Destinations whose attempts all delivered (any_failed false in `attempted`): back to 0 unless paused; a probe among them frees its slot. */
const RECOVERED = `recovered as (
  update destinations t
  set consecutive_failures = case when t.forwarding_paused_at is null then 0 else t.consecutive_failures end, ${FREE_PROBE_SLOT}
  from (select distinct destination_id from attempted where not any_failed) a
  where t.id = a.destination_id
    and ((t.forwarding_paused_at is null and t.consecutive_failures <> 0) or t.probe_event_id in (select event_id from updated x where x.destination_id = t.id))
),
`;

const AUDITED_PAUSE = `-- A tripped breaker is in the audit log, by the system, with the count that tripped it.
audited as (
  insert into audit_log (id, team_id, actor_type, action, target_type, target_id, target_name, changes)
  select ${UUIDV7_SQL}, j.team_id, 'system', 'destination.pause', 'destination', j.destination_id::text, j.name,
         jsonb_build_object('endpoint_id', j.endpoint_id, 'consecutive_failures', j.consecutive, 'pause_after_failures', j.pause_after_failures,
                            'paused_reason', j.reason, 'event_id', j.tripped_by)
  from judged j where j.trips
),
`;

/** A tripped breaker is always announced when chat notifications are on (whatever the triggers). */
const PAUSE_NOTIFICATION = `
  union all
  select n.team_id, j.tripped_by, 'paused'
  from judged j join notification_settings n on n.team_id = j.team_id
  where j.trips and n.enabled and n.paused_reason is null`;

/*
 * One statement stores a batch of attempts: each as a delivery_attempts row, its result on
 * the delivery (pending again with next_attempt_at when a retry is due, else delivered or
 * failed; a delivery leased on its event gets its row here), the destinations' circuit
 * breakers, and the sum of each touched event's deliveries on the event (eventStatus below)
 * with its counts, charts and notifications, so none of them ever drifts from the deliveries.
 * Only the attempt the delivery's current claim made is stored: a late result of an older
 * claim changes nothing.
 * An event's status (core's eventStatusOfDeliveries): failed once any delivery finally failed, else
 * pending while any is pending, else delivered. Its response columns show the latest stored
 * attempt (to any destination), as the feed's summary; each delivery's attempts are in
 * delivery_attempts. The breakers: see `attempted` below (core's judgeBreaker); the alerts:
 * COMPLETION_ALERTS_CTE (core's completionAlerts). packages/db/test/completion-rules.test.ts
 * runs this statement and those functions on the same cases.
 * It comes in two forms built from the same parts: with `failures` when some attempt of the
 * batch failed (the breakers are judged attempt by attempt, and alerts and pause notifications
 * may be raised), or the lean form when every attempt was delivered, the common case: then no
 * breaker can trip and no event can become failed, so those parts are left out (a plan costs
 * something per part even when it finds no row: 10 to 25 µs per attempt in batches of 10).
 */
function completeStatement(failures: boolean): string {
  return `
with r as (
  select * from json_to_recordset($1::json) as t(
    id uuid, destination_id uuid, other_deliveries boolean, lease_on_event boolean, attempt int, status text, retry_in_ms float8, hold_lease_ms float8,
    started_at float8, latency_ms int, response_status int, response_headers json, body_offset int, body_size int, response_truncated boolean,
    error text, failure text
  )
),
-- Each attempt's delivery as it is after it: pending again with next_attempt_at when a retry is due, else delivered or failed.
settled as (
  select r.id, r.destination_id, r.lease_on_event, r.attempt,
         case when retrying then 'pending' else r.status end as status,
         case when retrying then now() + make_interval(secs => r.retry_in_ms / 1000) end as next_attempt_at,
         case when retrying then null else now() end as completed_at,
         -- A retry the sender keeps in memory stays leased to it until well after it is due.
         case when retrying and r.hold_lease_ms is not null then now() + make_interval(secs => (r.retry_in_ms + r.hold_lease_ms) / 1000) end as lease_expires_at
  from r, lateral (select r.status = 'failed' and r.retry_in_ms is not null as retrying) x
),
stored_rows as (
  update deliveries d
  set status = s.status, next_attempt_at = s.next_attempt_at, completed_at = s.completed_at, lease_expires_at = s.lease_expires_at
  from settled s
  where not s.lease_on_event and d.event_id = s.id and d.destination_id = s.destination_id and d.status = 'pending' and d.attempts = s.attempt
  returning d.event_id, d.destination_id, d.endpoint_id, d.status, d.next_attempt_at, d.attempts
),
-- A fast-path lease on the event (lease_on_event): its row is written now, if the event still holds
-- that lease (a lease that expired or was handed back has its row already: then nothing is written).
written_rows as (
  insert into deliveries (event_id, destination_id, endpoint_id, status, attempts, next_attempt_at, completed_at, lease_expires_at)
  select s.id, s.destination_id, e.endpoint_id, s.status, s.attempt, s.next_attempt_at, s.completed_at, s.lease_expires_at
  from settled s
  -- One probe of the event's key per row (OFFSET 0 keeps it a lookup): a planner misled by a
  -- young table's statistics would otherwise hash-join a scan of every event.
  cross join lateral (select e.endpoint_id from events e where e.id = s.id and e.fast_path_destination_id = s.destination_id offset 0) e
  where s.lease_on_event
  on conflict do nothing
  returning event_id, destination_id, endpoint_id, status, next_attempt_at, attempts
),
updated as (
  select u.event_id, u.destination_id, u.endpoint_id, u.status, u.next_attempt_at, r.attempt, r.status as outcome, r.started_at, r.failure, r.other_deliveries
  from (select * from stored_rows union all select * from written_rows) u
  join r on r.id = u.event_id and r.destination_id = u.destination_id and r.attempt = u.attempts
),
recorded as (
  insert into delivery_attempts (event_id, destination_id, attempt, started_at, latency_ms, response_status, response_headers, response_body,
                                 response_truncated, error, outcome)
  select r.id, r.destination_id, r.attempt, to_timestamp(r.started_at / 1000), r.latency_ms, r.response_status, r.response_headers,
         case when r.body_size is null then null else substring($2::bytea from r.body_offset + 1 for r.body_size) end,
         r.response_truncated, r.error, r.status
  from r join updated u on u.event_id = r.id and u.destination_id = r.destination_id
),
-- Every delivery of the touched events as it is after this batch: the updated ones as updated
-- and, for events with other deliveries (fixed at capture), the stored ones from before that
-- this batch left alone. Most events have one delivery: their state is their updated row, and
-- nothing is read. Stored rows give way to updated ones by order, not by an anti-join against
-- "updated": the planner cannot size a CTE, and rescanned it for every stored row (quadratic
-- in the batch: 18 ms of a 250-row batch).
states as (
  select distinct on (event_id, destination_id) event_id, status, next_attempt_at
  from (
    select event_id, destination_id, status, next_attempt_at, false as stored from updated
    union all
    select d.event_id, d.destination_id, d.status, d.next_attempt_at, true from deliveries d
    where d.event_id in (select event_id from updated where other_deliveries)
  ) s
  order by event_id, destination_id, stored
),
summed as (
  select event_id,
         case when bool_or(status = 'failed') then 'failed' when bool_or(status = 'pending') then 'pending' else 'delivered' end as status,
         case when bool_and(status <> 'pending' or next_attempt_at is not null) then min(next_attempt_at) filter (where status = 'pending') end as next_attempt_at
  from states group by event_id
),
latest as (
  select distinct on (r.id) r.* from r join updated u on u.event_id = r.id and u.destination_id = r.destination_id
  order by r.id, r.started_at desc
),
events_now as (
  update events e
  set status = s.status, next_attempt_at = s.next_attempt_at,
      completed_at = case when s.status = 'pending' then null else coalesce(o.completed_at, now()) end,
      forwarded_at = to_timestamp(l.started_at / 1000), latency_ms = l.latency_ms, response_status = l.response_status,
      response_headers = l.response_headers,
      response_body = case when l.body_size is null then null else substring($2::bytea from l.body_offset + 1 for l.body_size) end,
      response_truncated = l.response_truncated, error = l.error, ${CLEAR_EVENT_LEASE}
  from summed s join events o on o.id = s.event_id join latest l on l.id = s.event_id
  where e.id = s.event_id
  returning e.id, e.endpoint_id, o.status as was, e.status
),
moved as (select * from events_now where was <> status),
-- Events whose status changed move between the endpoint's status counts (event_counts) and its health counters.
${STATUS_MOVES},
-- The charts' rollups, at now's minute: events reaching a final status (event_minutes), and every attempt's
-- latency by histogram bucket (latency_minutes); appended, never updated in place.
charted as (
  insert into event_minutes (endpoint_id, minute, delivered, failed)
  select endpoint_id, date_trunc('minute', now()), count(*) filter (where status = 'delivered'), count(*) filter (where status = 'failed')
  from moved where status in ('delivered', 'failed')
  group by endpoint_id
),
timed as (
  insert into latency_minutes (endpoint_id, minute, bucket, n)
  select u.endpoint_id, date_trunc('minute', now()), width_bucket(r.latency_ms, '${LATENCY_BOUNDS}'::int[]), count(*)
  from r join updated u on u.event_id = r.id and u.destination_id = r.destination_id
  group by 1, 3
),
${failures ? FULL_BREAKERS : LEAN_BREAKERS}
${RECOVERED}
${failures ? AUDITED_PAUSE : ""}
-- Chat notifications for the events' new final statuses are due in the same transaction (outbox).
notify as (
  insert into notification_outbox (team_id, event_id, trigger)
  select n.team_id, m.id, m.status
  from moved m join endpoints p on p.id = m.endpoint_id join notification_settings n on n.team_id = p.team_id
  where n.enabled and n.paused_reason is null and m.status = any(n.triggers)
  ${failures ? PAUSE_NOTIFICATION : ""}
  returning team_id
),
notify_jobs as (${enqueueNotifyJobs("select team_id from notify")}),
${failures ? `-- Alert rules watching failed deliveries and tripped breakers (alerts.ts).\n${COMPLETION_ALERTS_CTE},` : ""}
-- The live feeds of every instance hear of each touched event's status (event.status) at commit.
touched as (select e.id, e.endpoint_id, p.team_id, e.status from events_now e join endpoints p on p.id = e.endpoint_id),
${announceEventsCte({ rows: "touched", type: "event.status", status: "status", channel: BUS_CHANNEL_LITERAL })}
select u.event_id, u.destination_id, u.endpoint_id, p.team_id, u.status, ${failures ? "coalesce(j.trips, false)" : "false"} as paused_now, coalesce(t.ordered, false) as ordered,
       (select count(*) from announced) as announced
from updated u join endpoints p on p.id = u.endpoint_id ${failures ? "left join judged j on j.destination_id = u.destination_id" : ""}
left join destinations t on t.id = u.destination_id`;
}

const COMPLETE = completeStatement(true);
const COMPLETE_DELIVERED = completeStatement(false);

/** How a failed attempt reads in the breaker's paused_reason. */
function failureText(outcome: DeliveryOutcome): string | null {
  if (outcome.status !== "failed") return null;
  if (outcome.responseStatus !== null) return `destination answered ${outcome.responseStatus}`;
  return outcome.error ?? "unknown error";
}

function completionParameters(outcomes: DeliveryOutcome[]): [string, Buffer] {
  let offset = 0;
  const bodies: Buffer[] = [];
  const rows = outcomes.map((o) => {
    const size = o.responseBody?.byteLength ?? null;
    const row = {
      id: o.id,
      destination_id: o.destinationId,
      other_deliveries: o.otherDeliveries,
      lease_on_event: o.heldOn === "event",
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
  return [JSON.stringify(rows), Buffer.concat(bodies, offset)];
}

/**
 * Stores a batch of attempts (see COMPLETE); answers the deliveries it stored. A batch whose
 * events each have one delivery is one statement, atomic by itself: no transaction and no
 * event locks, so the common case (one destination) costs a single round trip.
 */
export async function completeDeliveries(pool: Pool, outcomes: DeliveryOutcome[]): Promise<CompletedDelivery[]> {
  const failures = outcomes.some((outcome) => outcome.status === "failed");
  const complete = failures
    ? { name: "rehook_complete_deliveries", text: COMPLETE, values: completionParameters(outcomes) }
    : { name: "rehook_complete_delivered", text: COMPLETE_DELIVERED, values: completionParameters(outcomes) };
  const shared = [...new Set(outcomes.filter((o) => o.otherDeliveries).map((o) => o.id))];
  const result =
    shared.length === 0
      ? await pool.query<CompletionRow>(complete)
      : await withTransaction(pool, async (client) => {
          await client.query({ name: "rehook_complete_lock_events", text: LOCK_EVENTS, values: [shared] });
          return client.query<CompletionRow>(complete);
        });
  return result.rows.map((row) => ({
    id: row.event_id,
    destinationId: row.destination_id,
    endpointId: row.endpoint_id,
    teamId: row.team_id,
    status: row.status,
    ordered: row.ordered,
    ...(row.paused_now ? { pausedNow: true } : {}),
  }));
}

interface CompletionRow {
  event_id: string;
  destination_id: string;
  endpoint_id: string;
  team_id: string;
  status: CompletedDelivery["status"];
  paused_now: boolean;
  ordered: boolean;
}
