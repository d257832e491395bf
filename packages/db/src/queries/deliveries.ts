import type { EventStatus, HeaderList } from "@rehook/core";
import type { Pool } from "../pool.js";
import { capturedRequest, type CapturedRequestFields, type CapturedRequestRow } from "./captured-request.js";
import { BODY_BYTES_PER_READ } from "./events.js";
import { byteBoundedIds } from "./events.js";

/** A pending event claimed for delivery, with what sending it needs. */
export interface ClaimedEvent extends CapturedRequestFields {
  destinationUrl: string;
  signRequests: boolean;
  secret: string;
  keepProxyHeaders: boolean;
}

interface ClaimRow extends CapturedRequestRow {
  destination_url: string;
  sign_requests: boolean;
  secret: string;
  keep_proxy_headers: boolean;
}

const toClaimed = (row: ClaimRow): ClaimedEvent => ({
  ...capturedRequest(row),
  destinationUrl: row.destination_url,
  signRequests: row.sign_requests,
  secret: row.secret,
  keepProxyHeaders: row.keep_proxy_headers,
});

/*
 * A claim sets a lease: until it expires no other instance takes the event. SKIP LOCKED lets
 * instances claim side by side without waiting on each other's rows. An expired lease (its
 * holder crashed or hung) makes the event claimable again by anyone.
 * A claim is cut at $4 body bytes (the first event always goes): bodies may be 10 MiB each,
 * and the claimed ones are held in memory until sent. Rows locked past the cut are let go
 * at commit, unleased, for the next claim.
 */
const CLAIM = (where: string) => `
with candidates as (
  select id, octet_length(body) as size from events
  where status = 'pending' and (lease_expires_at is null or lease_expires_at < now()) and ${where}
  order by id
  limit $2
  for update skip locked
),
claimable as (${byteBoundedIds("select id, size from candidates", "$4")})
update events e
set lease_expires_at = now() + make_interval(secs => $3::float8 / 1000), attempts = e.attempts + 1
from claimable c, endpoints p
where e.id = c.id and p.id = e.endpoint_id
returning e.id, e.endpoint_id, e.method, e.path, e.query, e.headers, e.body, e.destination_url,
          p.sign_requests, p.secret, p.keep_proxy_headers`;

const CLAIM_DUE = CLAIM("$1::int is not null");

/**
 * Claims pending events nobody holds (missed fast paths and expired leases), oldest first: up
 * to `limit` of them and about `maxBytes` of bodies (at least one event when any is due).
 */
export async function claimDueEvents(pool: Pool, limit: number, leaseMs: number, maxBytes = BODY_BYTES_PER_READ): Promise<ClaimedEvent[]> {
  const result = await pool.query<ClaimRow>({ name: "rehook_claim_due", text: CLAIM_DUE, values: [0, limit, leaseMs, maxBytes] });
  return result.rows.map(toClaimed);
}

/** The outcome of one delivery attempt, to be stored on its event. */
export interface DeliveryOutcome {
  id: string;
  status: Extract<EventStatus, "delivered" | "failed">;
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
  id: string;
  endpointId: string;
  /** The endpoint's owner: live feeds filter the bus by it without a query. */
  userId: string;
  status: EventStatus;
}

/*
 * One statement stores a batch of outcomes and moves the endpoints' counters with them, so
 * health never drifts from the events. Only a still-pending event is completed: a second
 * delivery after an expired lease (at-least-once) changes neither the event nor the counts.
 */
const COMPLETE = `
with r as (
  select * from json_to_recordset($1::json) as t(
    id uuid, status text, started_at float8, latency_ms int, response_status int, response_headers json,
    body_offset int, body_size int, response_truncated boolean, error text
  )
),
updated as (
  update events e
  set status = r.status, forwarded_at = to_timestamp(r.started_at / 1000), latency_ms = r.latency_ms, response_status = r.response_status,
      response_headers = r.response_headers,
      response_body = case when r.body_size is null then null else substring($2::bytea from r.body_offset + 1 for r.body_size) end,
      response_truncated = r.response_truncated, error = r.error, completed_at = now(), lease_expires_at = null
  from r
  where e.id = r.id and e.status = 'pending'
  returning e.id, e.endpoint_id, e.status
),
counted as (
  update endpoints p
  set delivered_count = p.delivered_count + c.delivered, failed_count = p.failed_count + c.failed
  from (
    select endpoint_id,
           count(*) filter (where status = 'delivered') as delivered,
           count(*) filter (where status = 'failed') as failed
    from updated group by endpoint_id
  ) c
  where p.id = c.endpoint_id
),
-- Chat notifications for these statuses are due in the same transaction (outbox).
notify as (
  insert into notification_outbox (user_id, event_id, trigger)
  select n.user_id, u.id, u.status
  from updated u join endpoints p on p.id = u.endpoint_id join notification_settings n on n.user_id = p.user_id
  where n.enabled and n.paused_reason is null and u.status = any(n.triggers)
)
select u.id, u.endpoint_id, p.user_id, u.status from updated u join endpoints p on p.id = u.endpoint_id`;

export async function completeEvents(pool: Pool, outcomes: DeliveryOutcome[]): Promise<CompletedEvent[]> {
  let offset = 0;
  const bodies: Buffer[] = [];
  const rows = outcomes.map((o) => {
    const size = o.responseBody?.byteLength ?? null;
    const row = {
      id: o.id,
      status: o.status,
      started_at: o.startedAt,
      latency_ms: o.latencyMs,
      response_status: o.responseStatus,
      response_headers: o.responseHeaders,
      body_offset: offset,
      body_size: size,
      response_truncated: o.responseTruncated,
      error: o.error,
    };
    if (o.responseBody) {
      bodies.push(o.responseBody);
      offset += o.responseBody.byteLength;
    }
    return row;
  });
  const result = await pool.query<{ id: string; endpoint_id: string; user_id: string; status: EventStatus }>({
    name: "rehook_complete_events",
    text: COMPLETE,
    values: [JSON.stringify(rows), Buffer.concat(bodies, offset)],
  });
  return result.rows.map((row) => ({ id: row.id, endpointId: row.endpoint_id, userId: row.user_id, status: row.status }));
}
