import { isUuid, originalDestination, type PlanDelivery, type PlanDestination } from "@rehook/core";
import type { EntityManager } from "@mikro-orm/postgresql";
import { insertingInto } from "../duplicate-row.js";
import { CAPTURED_REQUEST_COLUMNS, capturedRequest, type CapturedRequestFields, type CapturedRequestRow } from "./captured-request.js";
import { BODY_BYTES_PER_READ, byteBoundedIds } from "./events.js";
import { enqueueJobWith } from "../jobs/queue.js";
import { EndpointEntity, EventEntity, ReplayAttemptEntity, ReplayJobEntity, TeamEntity, UserEntity, type ReplayAttempt, type ReplayJob } from "../entities/index.js";


/** A stored event with what replaying it needs from its endpoint now. */
export interface ReplaySourceRow extends CapturedRequestFields {
  /**
   * The URL of the one destination "original" means for this event (core's
   * originalDestination), or null when it has none or several: never the first of several.
   */
  destinationUrl: string | null;
  /** The endpoint's destinations now, first position first. */
  destinations: PlanDestination[];
  /** The event's deliveries: the destinations it matched, how each went, whether a failure was resolved since. */
  deliveries: PlanDelivery[];
  stagingHost: string | null;
  signRequests: boolean;
  secret: string;
  keepProxyHeaders: boolean;
}

interface SourceRow extends CapturedRequestRow {
  destinations: PlanDestination[] | string;
  deliveries: Array<{ destinationId: string; status: PlanDelivery["status"]; resolved: boolean }> | string;
  staging_host: string | null;
  sign_requests: boolean;
  secret: string;
  keep_proxy_headers: boolean;
}

/*
 * The endpoint's destinations (one probe of destinations (endpoint_id, position)) and the
 * event's deliveries (its key's range of deliveries): a delivery leased on the event by the
 * fast path is pending; an event forwarded before routing (no delivery rows, attempts with no
 * destination) went to the endpoint's first destination, as its page shows it.
 */
const SOURCE_COLUMNS = `${CAPTURED_REQUEST_COLUMNS}, p.staging_host, p.sign_requests, p.secret, p.keep_proxy_headers,
  coalesce((select json_agg(json_build_object('id', t.id, 'name', t.name, 'url', t.url) order by t.position) from destinations t where t.endpoint_id = p.id), '[]') as destinations,
  coalesce(
    (select json_agg(json_build_object('destinationId', x.destination_id, 'status', x.status, 'resolved', x.resolved))
     from (select d.destination_id, d.status, d.resolved_at is not null as resolved from deliveries d where d.event_id = e.id
           union all
           select e.fast_path_destination_id, 'pending', false where e.fast_path_destination_id is not null) x),
    (select json_build_array(json_build_object('destinationId', t.id, 'status', e.status, 'resolved', false))
     from destinations t where t.endpoint_id = p.id and e.status in ('delivered', 'failed')
       and exists (select 1 from delivery_attempts a where a.event_id = e.id and a.destination_id is null)
     order by t.position limit 1),
    '[]') as deliveries`;

const parsed = <T>(value: T | string): T => (typeof value === "string" ? (JSON.parse(value) as T) : value);

const toSource = (row: SourceRow): ReplaySourceRow => {
  const destinations = parsed(row.destinations);
  const deliveries = parsed(row.deliveries);
  const original = originalDestination({ destinations, deliveries });
  return {
    ...capturedRequest(row),
    destinationUrl: original.ok ? original.destination.url : null,
    destinations,
    deliveries,
    stagingHost: row.staging_host,
    signRequests: row.sign_requests,
    secret: row.secret,
    keepProxyHeaders: row.keep_proxy_headers,
  };
};

/** The user's event and its endpoint's current settings; null when missing or someone else's. */
export async function findReplaySource(em: EntityManager, teamId: string, eventId: string): Promise<ReplaySourceRow | null> {
  if (!isUuid(eventId)) return null;
  const rows = await em.execute<SourceRow[]>(
    `select ${SOURCE_COLUMNS} from events e join endpoints p on p.id = e.endpoint_id where e.id = ? and p.team_id = ?`,
    [eventId, teamId],
  );
  return rows[0] ? toSource(rows[0]) : null;
}

/** Which of an endpoint's events a bulk replay page reads. */
export interface ReplayPage {
  status: string | null;
  /** Only the events that have something to send to this target (see bulkScope). */
  target?: BulkReplayTarget | null;
  /** Keyset cursor: events after this id. */
  after: string | null;
  /** Events before this id only (those that existed when the job started). */
  before: string;
  limit: number;
  /** About this many body bytes at most (always at least one event). */
  maxBytes?: number;
}

/** Where a bulk replay sends each event among the endpoint's destinations (null: a URL environment). */
export type BulkReplayTarget = "destination" | "matched" | "failed";

/**
 * The events a bulk replay to `target` has something to send for (a condition on `e`):
 * matched, those with a delivery to a destination that still exists; failed, those with a
 * failed delivery not resolved yet to one. Any event can go to one named destination or a URL.
 */
function bulkScope(target: BulkReplayTarget | null | undefined): string | null {
  if (target === "failed") {
    return `exists (select 1 from deliveries d join destinations t on t.id = d.destination_id where d.event_id = e.id and d.status = 'failed' and d.resolved_at is null)`;
  }
  if (target === "matched") return `exists (select 1 from deliveries d join destinations t on t.id = d.destination_id where d.event_id = e.id)`;
  return null;
}

/** A keyset page of an endpoint's events for a bulk replay, oldest first, cut by rows and body bytes. */
export async function replaySourcesPage(em: EntityManager, teamId: string, endpointId: string, page: ReplayPage): Promise<ReplaySourceRow[]> {
  const where = ["p.team_id = ?", "e.endpoint_id = ?", "e.id < ?"];
  const params: unknown[] = [teamId, endpointId, page.before];
  if (page.status) (where.push("e.status = ?"), params.push(page.status));
  if (page.after) (where.push("e.id > ?"), params.push(page.after));
  const scope = bulkScope(page.target);
  if (scope) where.push(scope);
  params.push(page.limit, page.maxBytes ?? BODY_BYTES_PER_READ);
  const candidates = `select e.id, octet_length(e.body) as size from events e join endpoints p on p.id = e.endpoint_id
                      where ${where.join(" and ")} order by e.id limit ?`;
  const rows = await em.execute<SourceRow[]>(
    `with page as (${byteBoundedIds(candidates, "?")})
     select ${SOURCE_COLUMNS} from page join events e on e.id = page.id join endpoints p on p.id = e.endpoint_id order by e.id`,
    params,
  );
  return rows.map(toSource);
}

/**
 * How many of the endpoint's events (of a status, or all) a bulk replay to `target` would
 * send, among those before `before`: what its total says. Targets that need no delivery
 * (one destination, a URL) are counted from event_counts instead (countOwnedEvents).
 */
export async function countBulkReplayScope(em: EntityManager, teamId: string, endpointId: string, filter: { status: string | null; target: "matched" | "failed"; before: string }): Promise<number> {
  const where = ["p.team_id = ?", "e.endpoint_id = ?", "e.id < ?", bulkScope(filter.target)!];
  const params: unknown[] = [teamId, endpointId, filter.before];
  if (filter.status) (where.push("e.status = ?"), params.push(filter.status));
  const rows = await em.execute<Array<{ n: string }>>(`select count(*) as n from events e join endpoints p on p.id = e.endpoint_id where ${where.join(" and ")}`, params);
  return Number(rows[0]!.n);
}

export type NewReplayAttempt = Omit<ReplayAttempt, "event" | "user" | "replayedAt" | "destinationId" | "localVia"> &
  Partial<Pick<ReplayAttempt, "destinationId" | "localVia">> & { eventId: string; userId: string | null };

export async function insertReplayAttempt(em: EntityManager, attempt: NewReplayAttempt): Promise<ReplayAttempt> {
  const { eventId, userId, ...fields } = attempt;
  const row = em.create(ReplayAttemptEntity, {
    destinationId: null,
    localVia: null,
    ...fields,
    event: em.getReference(EventEntity, eventId),
    user: userId ? em.getReference(UserEntity, userId) : null,
    replayedAt: new Date(),
  });
  // A caller-chosen id (a local record's attempt_id) may repeat one stored before.
  await insertingInto("replay_attempts", () => em.persistAndFlush(row));
  return row;
}

/** One replay attempt with the event it replayed, as lists show it. */
export interface ReplaySummary {
  id: string;
  eventId: string;
  endpointId: string;
  endpointName: string;
  eventType: string;
  environment: string;
  destinationUrl: string;
  status: string;
  responseStatus: number | null;
  latencyMs: number | null;
  error: string | null;
  replayedAt: Date;
  /** Sent with edits (edit-and-replay). */
  modified: boolean;
  /** The endpoint destination it went to, and that destination's name now (null: staging, local, custom, or removed). */
  destinationId: string | null;
  destinationName: string | null;
  /** A local replay's way to the developer's machine (null: not local, or recorded before this was kept). */
  localVia: "browser" | "listen" | null;
}

export interface ReplayFilter {
  eventId?: string;
  endpointId?: string;
  status?: string;
  /** Keyset cursor: attempts older than this id. */
  before?: string;
}

/** The user's replay attempts, newest first, a keyset page at a time. */
export async function listReplaySummaries(em: EntityManager, teamId: string, filter: ReplayFilter, limit: number): Promise<ReplaySummary[]> {
  const where = ["p.team_id = ?"];
  const params: unknown[] = [teamId];
  if (filter.eventId) (where.push("r.event_id = ?"), params.push(filter.eventId));
  if (filter.endpointId) (where.push("e.endpoint_id = ?"), params.push(filter.endpointId));
  if (filter.status) (where.push("r.status = ?"), params.push(filter.status));
  if (filter.before) (where.push("r.id < ?"), params.push(filter.before));
  params.push(limit);
  const rows = await em.execute<
    Array<{
      id: string;
      event_id: string;
      endpoint_id: string;
      endpoint_name: string;
      event_type: string;
      environment: string;
      destination_url: string;
      status: string;
      response_status: number | null;
      latency_ms: number | null;
      error: string | null;
      replayed_at: Date;
      modified: boolean;
      destination_id: string | null;
      destination_name: string | null;
      local_via: "browser" | "listen" | null;
    }>
  >(
    `select r.id, r.event_id, e.endpoint_id, p.name as endpoint_name, e.event_type, r.environment, r.destination_url,
            r.status, r.response_status, r.latency_ms, r.error, r.replayed_at, r.modified,
            r.destination_id, t.name as destination_name, r.local_via
     from replay_attempts r join events e on e.id = r.event_id join endpoints p on p.id = e.endpoint_id
     left join destinations t on t.id = r.destination_id
     where ${where.join(" and ")}
     order by r.id desc
     limit ?`,
    params,
  );
  return rows.map((row) => ({
    id: row.id,
    eventId: row.event_id,
    endpointId: row.endpoint_id,
    endpointName: row.endpoint_name,
    eventType: row.event_type,
    environment: row.environment,
    destinationUrl: row.destination_url,
    status: row.status,
    responseStatus: row.response_status,
    latencyMs: row.latency_ms,
    error: row.error,
    replayedAt: new Date(row.replayed_at),
    modified: row.modified,
    destinationId: row.destination_id,
    destinationName: row.destination_name,
    localVia: row.local_via,
  }));
}

/** One of the user's replay attempts in full (its response can be opened). */
export async function findOwnedReplayAttempt(em: EntityManager, teamId: string, attemptId: string): Promise<ReplayAttempt | null> {
  if (!isUuid(attemptId)) return null;
  return em.findOne(ReplayAttemptEntity, { id: attemptId, event: { endpoint: { team: teamId } } });
}

/** The job runner's kind for bulk replays (the job's key is the replay job's id). */
export const BULK_REPLAY_JOB = "bulk_replay";

export interface NewReplayJob {
  id: string;
  teamId: string;
  /** Who started it. */
  userId: string;
  endpointId: string;
  environment: string;
  customUrl: string | null;
  statusFilter: string | null;
  /** Which of the endpoint's destinations each event goes to (null: the URL environment). */
  target: BulkReplayTarget | null;
  /** target 'destination': that one. */
  destinationId: string | null;
  total: number;
  /** Only events before this id are replayed (those that existed when it started). */
  upTo: string;
}

/**
 * Inserts the job unless the team already has `maxRunning` jobs running (on any instance):
 * null then. The team's row is locked meanwhile, so two starts at once cannot both pass.
 * The job runner's job for it commits with it, so a replay started is never lost.
 */
export async function insertReplayJobIfRoom(em: EntityManager, job: NewReplayJob, maxRunning: number): Promise<ReplayJob | null> {
  return em.transactional(async (tx) => {
    // tx.execute (not getConnection().execute) runs inside the transaction.
    await tx.execute("select 1 from teams where id = ? for update", [job.teamId]);
    const running = await tx.count(ReplayJobEntity, { team: job.teamId, state: "running" });
    if (running >= maxRunning) return null;
    const row = await insertReplayJob(tx, job);
    await enqueueJobWith(tx, { kind: BULK_REPLAY_JOB, key: job.id });
    return row;
  });
}

export async function insertReplayJob(em: EntityManager, job: NewReplayJob): Promise<ReplayJob> {
  const now = new Date();
  const row = em.create(ReplayJobEntity, {
    id: job.id,
    team: em.getReference(TeamEntity, job.teamId),
    createdBy: em.getReference(UserEntity, job.userId),
    endpoint: em.getReference(EndpointEntity, job.endpointId),
    environment: job.environment,
    customUrl: job.customUrl,
    statusFilter: job.statusFilter,
    target: job.target,
    destinationId: job.destinationId,
    state: "running",
    total: job.total,
    done: 0,
    delivered: 0,
    failed: 0,
    error: null,
    createdAt: now,
    updatedAt: now,
    finishedAt: null,
    afterId: null,
    upTo: job.upTo,
  });
  await em.persistAndFlush(row);
  return row;
}

/** A bulk replay's counts so far. */
export interface ReplayProgress {
  done: number;
  delivered: number;
  failed: number;
}

/** Records a job's progress and where it got to (and, when `state` is given, its end). */
export async function updateReplayJob(
  em: EntityManager,
  jobId: string,
  progress: ReplayProgress & { afterId?: string | null; state?: "finished" | "interrupted"; error?: string | null },
): Promise<void> {
  const ended = progress.state ? { state: progress.state, finishedAt: new Date(), error: progress.error ?? null } : {};
  const cursor = progress.afterId ? { afterId: progress.afterId } : {};
  await em.nativeUpdate(ReplayJobEntity, { id: jobId }, { done: progress.done, delivered: progress.delivered, failed: progress.failed, updatedAt: new Date(), ...cursor, ...ended });
}

/** A job by id whoever owns it (the job runner resumes it). */
export async function findReplayJob(em: EntityManager, jobId: string): Promise<ReplayJob | null> {
  if (!isUuid(jobId)) return null;
  return em.findOne(ReplayJobEntity, { id: jobId });
}

export async function findOwnedReplayJob(em: EntityManager, teamId: string, jobId: string): Promise<ReplayJob | null> {
  if (!isUuid(jobId)) return null;
  return em.findOne(ReplayJobEntity, { id: jobId, team: teamId });
}
