import type { EntityManager } from "@mikro-orm/postgresql";
import { isUuid, MAX_DESTINATIONS_PER_ENDPOINT, type RetryPolicy, type RoutingFilter } from "@rehook/core";
import { DestinationEntity, EndpointEntity, type Destination } from "../entities/index.js";
import { BUS_CHANNEL } from "../event-bus.js";
import { bumpEndpointRuleVersion } from "./endpoints.js";
import { CLEAR_EVENT_LEASE } from "./deliveries.js";
import { LOCK_EVENTS_SQL, resumEvents, uuidArray } from "./event-status.js";

/** A destination's settings as a create or change names them (undefined: unchanged). */
export interface DestinationSettings {
  name?: string;
  url?: string;
  enabled?: boolean;
  filter?: RoutingFilter | null;
  rateLimitPerSecond?: number | null;
  ordered?: boolean;
  retryPolicy?: RetryPolicy | null;
  pauseAfterFailures?: number | null;
}

/** The policy as a destination's three columns (all null: one attempt). */
export function retryPolicyColumns(policy: RetryPolicy | null): Pick<Destination, "retryMaxAttempts" | "retryInitialDelayMs" | "retryMaxDelayMs"> {
  return { retryMaxAttempts: policy?.maxAttempts ?? null, retryInitialDelayMs: policy?.initialDelayMs ?? null, retryMaxDelayMs: policy?.maxDelayMs ?? null };
}

function columnsOf(settings: DestinationSettings): Partial<Destination> {
  const { retryPolicy, ...rest } = settings;
  const columns: Partial<Destination> = {};
  for (const [key, value] of Object.entries(rest)) if (value !== undefined) Object.assign(columns, { [key]: value });
  if (retryPolicy !== undefined) Object.assign(columns, retryPolicyColumns(retryPolicy));
  return columns;
}

/** The endpoint's destinations, first first. */
export async function listDestinationsOf(em: EntityManager, endpointId: string): Promise<Destination[]> {
  return em.find(DestinationEntity, { endpoint: endpointId }, { orderBy: { position: "asc" } });
}

/** The destinations of several endpoints, by endpoint, first first (one query for a page of endpoints). */
export async function destinationsByEndpoint(em: EntityManager, endpointIds: string[]): Promise<Map<string, Destination[]>> {
  const byEndpoint = new Map<string, Destination[]>(endpointIds.map((id) => [id, []]));
  if (endpointIds.length === 0) return byEndpoint;
  const rows = await em.find(DestinationEntity, { endpoint: { $in: endpointIds } }, { orderBy: { endpoint: "asc", position: "asc" } });
  for (const row of rows) byEndpoint.get(row.endpoint.id)?.push(row);
  return byEndpoint;
}

export async function findDestination(em: EntityManager, endpointId: string, destinationId: string): Promise<Destination | null> {
  if (!isUuid(destinationId)) return null;
  return em.findOne(DestinationEntity, { id: destinationId, endpoint: endpointId });
}

/*
 * Every change to an endpoint's destinations counts in its rule version: a capture checked
 * against the filters it knew is written again when they changed (see the capture writer).
 * Locks are taken in the order completions take them (events, then destinations, then the
 * endpoint), so a change and a completion never wait on each other in a circle.
 */
const bumpRuleVersion = bumpEndpointRuleVersion;

export type InsertDestinationResult = { kind: "inserted"; destination: Destination } | { kind: "too_many" };

/** Adds a destination after the endpoint's others, up to MAX_DESTINATIONS_PER_ENDPOINT. */
export async function insertDestination(
  em: EntityManager,
  input: { id: string; endpointId: string; name: string; url: string } & DestinationSettings,
): Promise<InsertDestinationResult> {
  return em.transactional(async (tx) => {
    await bumpRuleVersion(tx, input.endpointId);
    const rows = await tx.execute<Array<{ n: string; next: number | null }>>(
      `select count(*) as n, max(position) + 1 as next from destinations where endpoint_id = ?`,
      [input.endpointId],
    );
    if (Number(rows[0]!.n) >= MAX_DESTINATIONS_PER_ENDPOINT) return { kind: "too_many" as const };
    const now = new Date();
    const { id, endpointId, ...settings } = input;
    const destination = tx.create(DestinationEntity, {
      id,
      endpoint: tx.getReference(EndpointEntity, endpointId),
      position: rows[0]!.next ?? 0,
      enabled: true,
      filter: null,
      rateLimitPerSecond: null,
      ordered: false,
      retryMaxAttempts: null,
      retryInitialDelayMs: null,
      retryMaxDelayMs: null,
      pauseAfterFailures: null,
      consecutiveFailures: 0,
      forwardingPausedAt: null,
      pausedReason: null,
      rateNextStartAt: null,
      probeEventId: null,
      probeLeaseExpiresAt: null,
      createdAt: now,
      updatedAt: now,
      name: settings.name,
      url: settings.url,
      ...columnsOf(settings),
    });
    await tx.persistAndFlush(destination);
    return { kind: "inserted" as const, destination };
  });
}

/** Changes a destination of the endpoint; null when it has no such destination. */
export async function updateDestination(em: EntityManager, endpointId: string, destinationId: string, settings: DestinationSettings): Promise<Destination | null> {
  if (!isUuid(destinationId)) return null;
  return em.transactional(async (tx) => {
    const destination = await tx.findOne(DestinationEntity, { id: destinationId, endpoint: endpointId });
    if (!destination) return null;
    tx.assign(destination, { ...columnsOf(settings), updatedAt: new Date() });
    await tx.flush();
    await bumpRuleVersion(tx, endpointId);
    return destination;
  });
}

/*
 * Removes a destination. Its pending deliveries are cancelled (their events are summed up
 * again from what is left: an event whose only destination this was counts as captured),
 * fast-path leases on events included; its finished deliveries stay with their events' history.
 */
export async function deleteDestination(em: EntityManager, endpointId: string, destinationId: string): Promise<boolean> {
  if (!isUuid(destinationId)) return false;
  return em.transactional(async (tx) => {
    const pending = await tx.execute<Array<{ event_id: string }>>(
      `select d.event_id from deliveries d join destinations t on t.id = d.destination_id
       where d.destination_id = ? and t.endpoint_id = ? and d.status = 'pending'
       union
       select e.id from events e where e.fast_path_destination_id = ? and e.endpoint_id = ?
       order by 1`,
      [destinationId, endpointId, destinationId, endpointId],
    );
    const eventIds = pending.map((row) => row.event_id);
    if (eventIds.length > 0) await tx.execute(LOCK_EVENTS_SQL, [uuidArray(eventIds)]);
    const found = await tx.execute<Array<{ id: string }>>(`select id from destinations where id = ? and endpoint_id = ? for update`, [destinationId, endpointId]);
    if (found.length === 0) return false;
    // Pending deliveries stored since the read above are cancelled too; their events are summed up with the rest.
    const cancelled = await tx.execute<Array<{ event_id: string }>>(
      `with leases as (
         update events set ${CLEAR_EVENT_LEASE} where fast_path_destination_id = ? returning id
       ),
       queued as (delete from deliveries where destination_id = ? and status = 'pending' returning event_id)
       select event_id from queued union select id from leases`,
      [destinationId, destinationId],
    );
    await tx.execute(`delete from destinations where id = ?`, [destinationId]);
    await bumpRuleVersion(tx, endpointId);
    const seen = new Set(eventIds);
    const late = cancelled.map((row) => row.event_id).filter((id) => !seen.has(id));
    if (late.length > 0) await tx.execute(LOCK_EVENTS_SQL, [uuidArray(late)]);
    await resumEvents(tx, [...eventIds, ...late], BUS_CHANNEL);
    return true;
  });
}

/**
 * The endpoint-level forwarding settings (destination_url, retry_policy, pause_after_failures)
 * read and write its first destination: a URL on an endpoint without destinations adds one,
 * a null URL removes the first one (the next becomes first). Answers the first destination's id, if any.
 */
export async function changeFirstDestination(
  em: EntityManager,
  endpointId: string,
  changes: { url?: string | null; retryPolicy?: RetryPolicy | null; pauseAfterFailures?: number | null; newId: string; name: (url: string) => string },
): Promise<void> {
  const first = (await em.find(DestinationEntity, { endpoint: endpointId }, { orderBy: { position: "asc" }, limit: 1 }))[0];
  const { url, newId, name, ...settings } = changes;
  if (url === null) {
    if (first) await deleteDestination(em, endpointId, first.id);
    return;
  }
  if (first) {
    if (url !== undefined || settings.retryPolicy !== undefined || settings.pauseAfterFailures !== undefined) {
      await updateDestination(em, endpointId, first.id, { ...(url !== undefined ? { url } : {}), ...settings });
    }
    return;
  }
  if (url !== undefined) await insertDestination(em, { id: newId, endpointId, name: name(url), url, ...settings });
}
