import { performance } from "node:perf_hooks";
import {
  storableText,
  type CaptureBatchMetrics,
  type CustomResponse,
  type DedupRule,
  type EventStatus,
  type HandshakeRule,
  type HeaderList,
  type RoutingFilter,
  type RetryPolicy,
  type SignatureReason,
  type SignatureStatus,
} from "@rehook/core";
import type { StoredVerification } from "./entities/index.js";
import { retryPolicyOf } from "./queries/deliveries.js";
import type { Pool } from "./pool.js";
import { enqueueNotifyJobs } from "./jobs/queue.js";
import { announceEventsCte, BUS_CHANNEL_LITERAL } from "./event-bus.js";

/** One request as it arrived on a capture URL, ready to be stored. */
export interface CapturedRequest {
  id: string;
  slug: string;
  receivedAt: Date;
  method: string;
  path: string;
  query: string;
  headers: HeaderList;
  body: Buffer;
  contentType: string | null;
  clientIp: string | null;
  source: string;
  eventType: string;
  /**
   * The endpoint's signature rule version this request was checked under, and what the check
   * found; null and null when the caller knows of no rule. A row whose version is not the
   * endpoint's current one is not stored (see `recheck`).
   */
  verificationVersion?: number | null;
  signature?: SignatureStatus | null;
  /** Why the signature is not valid (null when it is, or nothing was checked). */
  signatureReason?: SignatureReason | null;
  /** The request's dedup key under the rule of `verificationVersion` (hex SHA-256; null: it has none). */
  dedupKey?: string | null;
  /** The filtered destinations whose filter (under the rule of `verificationVersion`) lets it through. */
  matched?: string[];
  /** The filtered destinations whose filter the filter work budget cut short (they take it not; the event says why). */
  filtersCutShort?: string[];
}

/** An enabled destination of the endpoint, as the capture statement found it. */
export interface Route {
  id: string;
  url: string;
  /** Its filter (null: it takes every event); checked before the write, see CapturedRequest.matched. */
  filter: RoutingFilter | null;
  /**
   * Its deliveries were stored leased to this instance's fast path (not paused, paced or ordered,
   * its breaker not half-open, and room). An event whose only delivery this is has the lease on
   * its own row, and no delivery row until the attempt's result (DeliveryLease.heldOn "event").
   */
  leased: boolean;
  /** It has a circuit breaker (ClaimedDelivery.breaker). */
  breaker: boolean;
  /** Its retry policy (null: one attempt). */
  retryPolicy: RetryPolicy | null;
}

/** How the endpoint's stored events are forwarded: the signing and header choices, and its destinations. */
export interface ForwardingSettings {
  signRequests: boolean;
  secret: string;
  keepProxyHeaders: boolean;
  routes: Route[];
  /** When the statement that leased the routes' deliveries was sent (epoch ms): ClaimedDelivery.takenAt. */
  leasedAt: number;
}

/** How an endpoint answers its senders and checks their signatures, as the batch found it. */
export interface EndpointIngress {
  customResponse: CustomResponse | null;
  handshake: HandshakeRule | null;
  verification: StoredVerification | null;
  /** Which requests are duplicates (null: none); its changes count in verificationVersion too. */
  dedup: DedupRule | null;
  /** Its enabled destinations with filters (their changes count in verificationVersion too). */
  filters: Array<{ id: string; filter: RoutingFilter }>;
  verificationVersion: number;
}

export type CaptureWriteResult =
  /**
   * `leased`: the event was stored already claimed for this instance's fast path.
   * `duplicateOf`: stored as a duplicate of that event (status duplicate, never forwarded).
   */
  | { kind: "stored"; endpointId: string; status: EventStatus; forwarding: ForwardingSettings; ingress: EndpointIngress; duplicateOf?: string }
  /** Nothing stored: the request was checked under another signature rule than the endpoint's; check it under `ingress` and write it again. */
  | { kind: "recheck"; endpointId: string; ingress: EndpointIngress }
  | { kind: "unknown_endpoint" };

/**
 * The delivery fast path, asked once per batch: while it has room, pending events are
 * inserted already leased to this instance, so handing them to delivery needs no second
 * statement. Without room they are stored unleased for whichever instance claims them, and so
 * are the events of an endpoint whose forwarding is paused (they wait until it is resumed).
 */
export interface FastPathLease {
  leaseMs: number;
  hasRoom(): boolean;
}

export interface GroupCommitOptions {
  /** Most rows in one statement. */
  maxRows?: number;
  /** Most body bytes in one statement; a single larger body still goes alone. */
  maxBytes?: number;
  /**
   * Statements in flight at most. One is the rule: captures of one endpoint all insert at the
   * right edge of the same index pages (ids are time-ordered) and lock the same endpoint row,
   * so two concurrent statements mostly wait on each other, and each carries fewer rows.
   * A further one starts only when a full batch is waiting or the oldest has run for
   * `overlapAfterMs` (a large body, a lock held elsewhere): a slow statement never stalls the rest.
   */
  maxInFlight?: number;
  /** See maxInFlight (default 25 ms). */
  overlapAfterMs?: number;
  fastPath?: FastPathLease;
  /** Told the number of rows of each statement (rehook_capture_batch_rows). */
  metrics?: CaptureBatchMetrics;
}

interface Waiting {
  request: CapturedRequest;
  resolve(result: CaptureWriteResult): void;
  reject(error: unknown): void;
}

/*
 * The rows a batch stores: each joined to its endpoint, and only if it was checked under the
 * endpoint's current signature rule (or, unchecked, for an endpoint with none); the others
 * go back to be checked again (see rowFitsRule, the same condition for the waiting callers).
 * A join condition rather than a filtered copy of the rows: a CTE used this often is
 * materialised, and copying every row (headers and all) once more cost 5 to 8 us a row.
 */
const STORED_ROWS = `incoming i join endpoint e on e.slug = i.slug
  and (i.verification_version = e.verification_version
       or (i.verification_version is null and e.verification is null and e.dedup is null and not e.filtered))`;


/*
 * One statement stores a whole batch. The slug is resolved inside the statement, so a
 * deleted endpoint answers 404 at once on every instance, with no cache to go stale.
 * The batch takes FOR KEY SHARE on each endpoint it writes to, once: a concurrent delete
 * waits until the batch commits (and its background purge then removes these events too),
 * and a batch that starts after the delete finds no endpoint and answers 404. That lock is what keeps events from
 * pointing at a deleted endpoint; events carry no foreign key, whose per-row check would
 * lock the same endpoint row again for every row (see the initial migration).
 * The rows travel as one JSON document ($1) and the bodies as one binary parameter ($2),
 * sliced by offset and size: both cost less on either side than a dozen typed arrays, and
 * bodies never pass through text.
 */
/** The advisory lock key under which capture statements draw events.stored_order (one for the whole database: see INSERT_BATCH). */
export const STREAM_ORDER_LOCK = 0x7265686f6f6b01n; // "rehook" 01

const INSERT_BATCH = `
with incoming as (
  select * from json_to_recordset($1::json) as t(
    id uuid, slug text, received_at timestamptz, method text, path text, query text, headers json,
    body_offset int, size_bytes int, content_type text, client_ip text, source text, event_type text,
    verification_version int, signature text, signature_reason text, dedup_key text, matched uuid[], cut_short uuid[]
  )
),
endpoint as (
  select id, team_id, slug, sign_requests, secret, keep_proxy_headers,
         exists (select 1 from destinations d where d.endpoint_id = endpoints.id and d.enabled and d.filter is not null) as filtered,
         custom_response, handshake, verification, verification_version, dedup,
         -- What its senders are answered, worked out once per endpoint rather than per row: the
         -- custom response's status and delay, or the default 200 at once. The caller answers by
         -- this same row; a handshake's answer depends on the request and is recorded after
         -- (recordHandshakeAnswer), rarely. Guarded casts: a saved value written around the
         -- checks must never fail the batch (an unusable status is recorded as unknown).
         case when custom_response is null then 200
              when jsonb_typeof(custom_response->'status') = 'number' then
                case when (custom_response->>'status')::numeric between 100 and 999 then (custom_response->>'status')::numeric::smallint end
         end as sender_status,
         case when jsonb_typeof(custom_response->'delayMs') = 'number' then
                case when (custom_response->>'delayMs')::numeric between 0 and 2147483647 then (custom_response->>'delayMs')::numeric::int end
              else 0
         end as sender_delay_ms
  from endpoints
  where slug in (select distinct slug from incoming)
  for key share
),
-- The endpoints' enabled destinations. A delivery is stored leased to the fast path ($3) unless
-- the destination is paused, paced or ordered, or its breaker is half-open (a breaker and
-- failed attempts in a row: one send at a time, as probes): those are claimed from the database.
routes as (
  select d.id, d.endpoint_id, d.position, d.url, d.filter, d.filter is not null as filtered,
         d.retry_max_attempts, d.retry_initial_delay_ms, d.retry_max_delay_ms, d.pause_after_failures is not null as breaker,
         d.forwarding_paused_at is null and d.rate_limit_per_second is null and not d.ordered
           and not (d.pause_after_failures is not null and d.consecutive_failures > 0) and $3::float8 is not null as leased
  from destinations d
  where d.endpoint_id in (select id from endpoint) and d.enabled
),
-- Deduplication: each key's first event in the batch claims the key in dedup_keys, or finds
-- it held by an earlier event whose window has not passed (then the row is a duplicate of
-- that one). ON CONFLICT reads the newest committed key, so a concurrent batch on another
-- instance is seen: the database, not a process, decides which came first. A key whose
-- window has passed is taken over by the new event. Endpoints without dedup add no rows.
-- On an endpoint that checks signatures only a valid event claims a key (verified), and it
-- takes over a key held by an event that was not verified (claimed before the check was on,
-- or before the upgrade that brought this rule): an unsigned request must not make the
-- sender's signed delivery its duplicate. (Rows fit the endpoint's current rule, so with
-- verification on, each one's signature was checked under it.)
keyed as (
  select distinct on (e.id, i.dedup_key) e.id as endpoint_id, decode(i.dedup_key, 'hex') as key_hash, i.id as event_id,
         (e.dedup->>'window_s')::int as window_s, e.verification is not null as verified
  from ${STORED_ROWS}
  where i.dedup_key is not null and e.dedup is not null and (e.verification is null or i.signature = 'valid')
  order by e.id, i.dedup_key, i.id
),
claimed_keys as (
  insert into dedup_keys as k (endpoint_id, key_hash, first_event_id, expires_at, verified)
  select endpoint_id, key_hash, event_id, now() + make_interval(secs => window_s), verified from keyed
  on conflict (endpoint_id, key_hash) do update
    set first_event_id = case when k.expires_at <= now() or (excluded.verified and not k.verified) then excluded.first_event_id else k.first_event_id end,
        expires_at = case when k.expires_at <= now() or (excluded.verified and not k.verified) then excluded.expires_at else k.expires_at end,
        verified = case when k.expires_at <= now() or (excluded.verified and not k.verified) then excluded.verified else k.verified end
  returning endpoint_id, key_hash, first_event_id
),
-- A row whose key the batch claimed is a duplicate unless it is the key's first event. A row
-- that claims nothing (its signature is not valid) and whose key the batch did not touch is a
-- duplicate of a verified event whose window runs, as committed when the statement began:
-- a forgery that repeats a delivery already forwarded is not forwarded again. Looked up one
-- key at a time (a scalar subquery), never by scanning dedup_keys.
dups as (
  select i.id, c.first_event_id
  from ${STORED_ROWS} join claimed_keys c on c.endpoint_id = e.id and c.key_hash = decode(i.dedup_key, 'hex')
  where e.dedup is not null and c.first_event_id <> i.id
  union all
  select id, first_event_id
  from (
    select i.id,
           (select k.first_event_id from dedup_keys k
            where k.endpoint_id = e.id and k.key_hash = decode(i.dedup_key, 'hex') and k.verified and k.expires_at > now()) as first_event_id
    from ${STORED_ROWS}
    where i.dedup_key is not null and e.dedup is not null and e.verification is not null and i.signature is distinct from 'valid'
      and not exists (select 1 from claimed_keys c where c.endpoint_id = e.id and c.key_hash = decode(i.dedup_key, 'hex'))
  ) unclaimed
  where first_event_id is not null
),
-- Routing: each stored row that is no duplicate goes to every destination without a filter and
-- to those whose filter let it through (checked before the write, under the current rule); a
-- row with none stays here once, with a null destination, so that "placed" below is one pass
-- over this (a join back to it ran per row, quadratic in the batch). A row's only delivery,
-- when leased to the fast path, is leased on the event row itself and gets no delivery row until
-- its attempt's result: see the fast_path_lease migration.
matches as (
  select i.id as event_id, e.id as endpoint_id, e.team_id, i.received_at, e.sender_status, e.sender_delay_ms,
         x.id is not null as duplicate, x.first_event_id as duplicate_of,
         t.id as destination_id, t.position, t.url, t.leased, count(t.id) over (partition by i.id) as routed
  from ${STORED_ROWS} left join dups x on x.id = i.id
  left join routes t on x.id is null and t.endpoint_id = e.id and (not t.filtered or t.id = any(i.matched))
),
-- Each stored row once, narrow (no headers or body): what the writes below need of it. Its
-- status: a duplicate waits for nothing; otherwise pending when some destination takes it.
-- Read five times, so computed once: joining the rows again for each cost several µs a row.
placed as (
  select distinct on (event_id) event_id as id, endpoint_id, team_id, received_at, sender_status, sender_delay_ms, url as first_url, duplicate_of,
         case when routed = 1 and leased then destination_id end as fast_path_destination_id,
         case when duplicate then 'duplicate' when routed > 0 then 'pending' else 'captured' end as status
  from matches
  order by event_id, position
),
queued as (
  insert into deliveries (event_id, destination_id, endpoint_id, status, attempts, lease_expires_at)
  select event_id, destination_id, endpoint_id, 'pending', case when leased then 1 else 0 end,
         case when leased then now() + make_interval(secs => $3::float8 / 1000) end
  from matches
  where destination_id is not null and not (routed = 1 and leased)
),
-- A "captured" chat notification is due in the same transaction as the event (outbox).
notify as (
  insert into notification_outbox (team_id, event_id, trigger)
  select n.team_id, p.id, 'captured'
  from placed p join notification_settings n on n.team_id = p.team_id
  where p.status = 'captured' and n.enabled and n.paused_reason is null and 'captured' = any(n.triggers)
  returning team_id
),
notify_jobs as (${enqueueNotifyJobs("select team_id from notify")} returning 1),
-- The stream order (events.stored_order, see the event_stored_order migration) must follow
-- commit order: the numbers are drawn while this lock is held, and it is held until commit.
-- Taken after everything here that can wait for another capture (the dedup and job upserts,
-- read whole by the counts), so its holder waits for no capture: no deadlock. Only the
-- inserts below and the commit run while it is held.
stream_order as (
  select pg_advisory_xact_lock(${STREAM_ORDER_LOCK}) from (select count(*) from claimed_keys) k, (select count(*) from notify_jobs) j
),
-- Joined to the lock's row, so no row (and no nextval of its stored_order) comes before the lock.
stored as (
  insert into events (id, endpoint_id, received_at, method, path, query, headers, body, content_type,
                      size_bytes, client_ip, source, event_type, signature, signature_reason, status, destination_url,
                      sender_status, sender_delay_ms, duplicate_of, fast_path_destination_id, fast_path_lease_expires_at, filters_cut_short)
  select i.id, p.endpoint_id, i.received_at, i.method, i.path, i.query, i.headers,
         substring($2::bytea from i.body_offset + 1 for i.size_bytes), i.content_type,
         i.size_bytes, i.client_ip, i.source, i.event_type, i.signature, i.signature_reason,
         p.status, p.first_url, p.sender_status, p.sender_delay_ms, p.duplicate_of, p.fast_path_destination_id,
         case when p.fast_path_destination_id is not null then now() + make_interval(secs => $3::float8 / 1000) end,
         -- A duplicate is routed nowhere, whatever its filters said.
         case when p.duplicate_of is null then i.cut_short end
  from placed p join incoming i on i.id = p.id cross join stream_order
),
-- The endpoints' counts of events per status (event_counts), in the same transaction.
counted as (
  insert into event_counts (endpoint_id, status, n)
  select endpoint_id, status, count(*)
  from placed
  group by 1, 2
),
-- The charts' per-minute captures (event_minutes): one delta row per endpoint and minute of the batch.
charted as (
  insert into event_minutes (endpoint_id, minute, captured)
  select endpoint_id, date_trunc('minute', received_at), count(*)
  from placed
  group by 1, 2
),
-- The live feeds of every instance hear of the new events (event.created) at commit.
${announceEventsCte({
  rows: "placed s",
  type: "event.created",
  status: "status",
  channel: BUS_CHANNEL_LITERAL,
})}
-- One row per endpoint found, not per event: every event of a found slug whose rule fits was inserted.
-- The endpoint's forwarding settings come back too (the fast path delivers from memory), and
-- its answer and signature rule (the capture path keeps them for the next requests).
select id as endpoint_id, team_id, slug, sign_requests, secret, keep_proxy_headers,
       (select coalesce(json_agg(json_build_object('id', t.id, 'url', t.url, 'filter', t.filter, 'leased', t.leased, 'breaker', t.breaker,
                                                   'retry_max_attempts', t.retry_max_attempts, 'retry_initial_delay_ms', t.retry_initial_delay_ms,
                                                   'retry_max_delay_ms', t.retry_max_delay_ms) order by t.position), '[]')
        from routes t where t.endpoint_id = endpoint.id) as routes,
       custom_response, handshake, verification, verification_version, dedup,
       (select coalesce(json_agg(json_build_array(d.id, d.first_event_id)), '[]') from dups d) as duplicates,
       (select count(*) from announced) as announced
from endpoint`;

/** The statement's `incoming` condition, for telling each waiting caller whether its row went in. */
function rowFitsRule(request: CapturedRequest, endpoint: { verification_version: number; verification: unknown; dedup: unknown; routes: RouteRow[] }): boolean {
  const version = request.verificationVersion ?? null;
  if (version === endpoint.verification_version) return true;
  return version === null && endpoint.verification === null && endpoint.dedup === null && endpoint.routes.every((route) => route.filter === null);
}

interface RouteRow {
  id: string;
  url: string;
  filter: RoutingFilter | null;
  leased: boolean;
  breaker: boolean;
  retry_max_attempts: number | null;
  retry_initial_delay_ms: number | null;
  retry_max_delay_ms: number | null;
}

const toRoute = (row: RouteRow): Route => ({ id: row.id, url: row.url, filter: row.filter, leased: row.leased, breaker: row.breaker, retryPolicy: retryPolicyOf(row) });

/*
 * Every text of a row, sanitised: PostgreSQL refuses NUL and lone surrogates in text and json,
 * and one such string would fail the whole batch statement (its neighbours are then retried
 * alone, but the sender of that row would get 503 for its content). Node's HTTP parser
 * already refuses NUL and control characters in the request line and headers, and gives
 * header text as latin1 (no surrogates), so this normally changes nothing.
 */
const nullableText = (value: string | null) => (value === null ? null : storableText(value));
function storableHeaders(headers: HeaderList): HeaderList {
  const clean = headers.every(([name, value]) => storableText(name) === name && storableText(value) === value);
  return clean ? headers : headers.map(([name, value]) => [storableText(name), storableText(value)]);
}

function batchParameters(requests: CapturedRequest[]): [string, Buffer] {
  let offset = 0;
  const rows = requests.map((r) => {
    const row = {
      id: r.id,
      slug: r.slug, // a valid slug (checked before capture), matched against the endpoints as it is
      received_at: r.receivedAt.toISOString(),
      method: storableText(r.method),
      path: storableText(r.path),
      query: storableText(r.query),
      headers: storableHeaders(r.headers),
      body_offset: offset,
      size_bytes: r.body.byteLength,
      content_type: nullableText(r.contentType),
      client_ip: nullableText(r.clientIp),
      source: storableText(r.source),
      event_type: storableText(r.eventType),
    };
    // Left out when null (json_to_recordset reads a missing key as null): most endpoints check no signatures.
    if (r.verificationVersion != null) {
      Object.assign(row, {
        verification_version: r.verificationVersion,
        signature: r.signature ?? null,
        signature_reason: r.signatureReason ?? null,
        dedup_key: r.dedupKey ?? null,
        matched: r.matched ?? [],
        // Absent (null) unless some filter was cut short: the common row stays as small as it was.
        ...(r.filtersCutShort?.length ? { cut_short: r.filtersCutShort } : {}),
      });
    }
    offset += r.body.byteLength;
    return row;
  });
  // A batch of one (a large body often goes alone) passes its body as it is: no copy of up to MAX_PAYLOAD_BYTES in one turn.
  return [JSON.stringify(rows), requests.length === 1 ? requests[0]!.body : Buffer.concat(requests.map((r) => r.body), offset)];
}

/**
 * Group commit for captures: requests that arrive while a statement is in flight are
 * stored together by the next one, so the database sees a few large transactions instead
 * of one commit (one fsync) per request. A caller's promise settles only after its row
 * is committed, or with the error that prevented it.
 */
export class GroupCommitWriter {
  private readonly queue: Waiting[] = [];
  private inFlight = 0;
  /** performance.now() at which each statement in flight started, oldest first. */
  private readonly startedAt: number[] = [];
  private scheduled = false;
  private overlapTimer: NodeJS.Timeout | undefined;
  private idleWaiters: Array<() => void> = [];
  private readonly maxRows: number;
  private readonly maxBytes: number;
  private readonly maxInFlight: number;
  private readonly overlapAfterMs: number;
  private readonly fastPath: FastPathLease | undefined;
  private readonly metrics: CaptureBatchMetrics | undefined;

  constructor(
    private readonly pool: Pool,
    options: GroupCommitOptions = {},
  ) {
    this.maxRows = options.maxRows ?? 1_000;
    this.maxBytes = options.maxBytes ?? 16 * 1024 * 1024;
    this.maxInFlight = options.maxInFlight ?? 2;
    this.overlapAfterMs = options.overlapAfterMs ?? 25;
    this.fastPath = options.fastPath;
    this.metrics = options.metrics;
  }

  write(request: CapturedRequest): Promise<CaptureWriteResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ request, resolve, reject });
      this.schedule();
    });
  }

  /**
   * Records that a stored event's sender got a provider handshake's answer (200 or 403, at
   * once) rather than the one its row was stored with: handshakes depend on the request and
   * come once per app setup, so they cost one more statement instead of the capture statement
   * deciding them for every row.
   */
  async recordHandshakeAnswer(eventId: string, status: number): Promise<void> {
    await this.pool.query({
      name: "rehook_capture_handshake_answer",
      text: "update events set sender_status = $2, sender_delay_ms = 0 where id = $1",
      values: [eventId, status],
    });
  }

  /** Resolves once everything queued so far is committed (or failed): for shutdown. */
  drain(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private isIdle(): boolean {
    return this.queue.length === 0 && this.inFlight === 0;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    // Let the requests parsed in this turn of the event loop join the same batch.
    setImmediate(() => {
      this.scheduled = false;
      while (this.queue.length > 0 && this.mayStartStatement()) this.flush(this.takeBatch());
      if (this.queue.length > 0 && this.inFlight < this.maxInFlight) this.overlapLater();
    });
  }

  private mayStartStatement(): boolean {
    if (this.inFlight === 0) return true;
    if (this.inFlight >= this.maxInFlight) return false;
    return this.queue.length >= this.maxRows || performance.now() - this.startedAt[0]! >= this.overlapAfterMs;
  }

  /** Looks again once the oldest statement has run for overlapAfterMs, if it is still running then. */
  private overlapLater(): void {
    if (this.overlapTimer) return;
    const wait = Math.max(0, this.overlapAfterMs - (performance.now() - this.startedAt[0]!));
    this.overlapTimer = setTimeout(() => {
      this.overlapTimer = undefined;
      if (this.queue.length > 0) this.schedule();
    }, wait);
    this.overlapTimer.unref();
  }

  private takeBatch(): Waiting[] {
    const batch: Waiting[] = [];
    let bytes = 0;
    while (this.queue.length > 0 && batch.length < this.maxRows) {
      const size = this.queue[0]!.request.body.byteLength;
      if (batch.length > 0 && bytes + size > this.maxBytes) break;
      batch.push(this.queue.shift()!);
      bytes += size;
    }
    return batch;
  }

  private flush(batch: Waiting[]): void {
    this.inFlight += 1;
    const started = performance.now();
    this.startedAt.push(started);
    this.store(batch)
      .catch(async (error: unknown) => {
        // One bad row must not fail its neighbours: retry them one by one, unless the
        // database itself is unreachable, in which case all of them fail the same way.
        if (batch.length === 1 || isConnectionError(error)) throw error;
        await Promise.all(batch.map((waiting) => this.store([waiting]).catch((e: unknown) => waiting.reject(e))));
      })
      .catch((error: unknown) => batch.forEach((waiting) => waiting.reject(error)))
      .finally(() => {
        this.inFlight -= 1;
        this.startedAt.splice(this.startedAt.indexOf(started), 1);
        if (this.queue.length > 0) this.schedule();
        else if (this.isIdle()) this.idleWaiters.splice(0).forEach((resolve) => resolve());
      });
  }

  private async store(batch: Waiting[]): Promise<void> {
    this.metrics?.captureBatch(batch.length);
    // Before the statement is sent: a lease it takes is never dated after the snapshot it was decided on.
    const leasedAt = Date.now();
    // Named: each connection parses and plans the statement once, not once per batch.
    const result = await this.pool.query<{
      endpoint_id: string;
      slug: string;
      sign_requests: boolean;
      secret: string;
      keep_proxy_headers: boolean;
      routes: RouteRow[];
      custom_response: CustomResponse | null;
      handshake: HandshakeRule | null;
      verification: StoredVerification | null;
      verification_version: number;
      dedup: DedupRule | null;
      duplicates: Array<[string, string]>;
    }>({
      name: "rehook_capture_batch",
      text: INSERT_BATCH,
      values: [...batchParameters(batch.map((waiting) => waiting.request)), this.fastPath?.hasRoom() ? this.fastPath.leaseMs : null],
    });
    const endpoints = new Map(
      result.rows.map((row) => [
        row.slug,
        {
          row,
          routes: row.routes.map(toRoute),
          ingress: {
            customResponse: row.custom_response,
            handshake: row.handshake,
            verification: row.verification,
            dedup: row.dedup,
            filters: row.routes.flatMap((route) => (route.filter === null ? [] : [{ id: route.id, filter: route.filter }])),
            verificationVersion: row.verification_version,
          } satisfies EndpointIngress,
        },
      ]),
    );
    // The same list on every row (a batch's duplicates, usually none).
    const duplicates = new Map(result.rows[0]?.duplicates ?? []);
    for (const waiting of batch) {
      const found = endpoints.get(waiting.request.slug);
      if (!found) {
        waiting.resolve({ kind: "unknown_endpoint" });
        continue;
      }
      const { row: endpoint, ingress, routes } = found;
      if (!rowFitsRule(waiting.request, endpoint)) {
        waiting.resolve({ kind: "recheck", endpointId: endpoint.endpoint_id, ingress });
        continue;
      }
      const duplicateOf = duplicates.get(waiting.request.id);
      // The routes this row went to, as the statement chose them (see matches).
      const matched = duplicateOf ? [] : routes.filter((route) => route.filter === null || (waiting.request.matched ?? []).includes(route.id));
      waiting.resolve({
        kind: "stored",
        endpointId: endpoint.endpoint_id,
        status: duplicateOf ? "duplicate" : matched.length > 0 ? "pending" : "captured",
        forwarding: { signRequests: endpoint.sign_requests, secret: endpoint.secret, keepProxyHeaders: endpoint.keep_proxy_headers, routes: matched, leasedAt },
        ingress,
        ...(duplicateOf ? { duplicateOf } : {}),
      });
    }
  }
}

const CONNECTION_ERROR_CODES = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ETIMEDOUT", "57P01", "57P02", "57P03", "08000", "08003", "08006"]);

export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "string" && CONNECTION_ERROR_CODES.has(code)) return true;
  const message = error instanceof Error ? error.message : "";
  return /timeout exceeded when trying to connect|Connection terminated|connect ECONNREFUSED|Client has encountered a connection error/i.test(message);
}
