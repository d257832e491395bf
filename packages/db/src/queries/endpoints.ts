import type { EntityManager } from "@mikro-orm/postgresql";
import { defaultDestinationName, isUuid, retryPolicyFromColumns, type CustomResponse, type DedupRule, type HandshakeRule, type RetryPolicy } from "@rehook/core";
import { EndpointEntity, TeamEntity, type Endpoint, type StoredVerification } from "../entities/index.js";
import { insertingInto } from "../duplicate-row.js";
import { BUS_CHANNEL } from "../event-bus.js";
import { enqueueJobWith } from "../jobs/queue.js";
import { insertDestination } from "./destinations.js";

export interface NewEndpoint {
  id: string;
  teamId: string;
  name: string;
  slug: string;
  destinationUrl: string | null;
  /** The id its first destination gets, when it has a destination URL. */
  firstDestinationId: string;
  secret: string;
  signRequests: boolean;
  keepProxyHeaders?: boolean;
  retryPolicy?: RetryPolicy | null;
  pauseAfterFailures?: number | null;
  retentionDays?: number | null;
  customResponse?: CustomResponse | null;
  handshake?: HandshakeRule | null;
  verification?: StoredVerification | null;
  dedup?: DedupRule | null;
}

export async function insertEndpoint(em: EntityManager, input: NewEndpoint): Promise<Endpoint> {
  const now = new Date();
  const endpoint = em.create(EndpointEntity, {
    id: input.id,
    team: em.getReference(TeamEntity, input.teamId),
    name: input.name,
    slug: input.slug,
    secret: input.secret,
    signRequests: input.signRequests,
    stagingHost: null,
    keepProxyHeaders: input.keepProxyHeaders ?? false,
    deliveredCount: 0,
    failedCount: 0,
    retentionDays: input.retentionDays ?? null,
    customResponse: input.customResponse ?? null,
    handshake: input.handshake ?? null,
    verification: input.verification ?? null,
    verificationVersion: 0,
    dedup: input.dedup ?? null,
    createdAt: now,
    updatedAt: now,
  });
  await insertingInto("endpoints", () =>
    em.transactional(async (tx) => {
      tx.persist(endpoint);
      await tx.flush();
      // Its destination_url is its first destination.
      if (input.destinationUrl) {
        const url = input.destinationUrl;
        const settings = { retryPolicy: input.retryPolicy ?? null, pauseAfterFailures: input.pauseAfterFailures ?? null };
        await insertDestination(tx, { id: input.firstDestinationId, endpointId: input.id, name: defaultDestinationName(url), url, ...settings });
      }
    }),
  );
  return em.findOneOrFail(EndpointEntity, { id: input.id }, { refresh: true });
}

/** The endpoint's first destination's retry policy, or null for one attempt (or no destination). */
export function endpointRetryPolicy(endpoint: Pick<Endpoint, "routing">): RetryPolicy | null {
  const first = endpoint.routing.first;
  return first ? retryPolicyFromColumns(first.retry_max_attempts, first.retry_initial_delay_ms, first.retry_max_delay_ms) : null;
}

/** How callers name an endpoint: the dashboard and API by id, the CLI by slug. */
export type EndpointRef = { id: string } | { slug: string };


function refFilter(teamId: string, ref: EndpointRef) {
  return "id" in ref ? { id: ref.id, team: teamId } : { slug: ref.slug, team: teamId };
}

export async function findEndpointBySlug(em: EntityManager, teamId: string, slug: string): Promise<Endpoint | null> {
  return em.findOne(EndpointEntity, { slug, team: teamId });
}

/** The user's endpoint, or null when it is missing or someone else's (callers answer the same). */
export async function findOwnedEndpoint(em: EntityManager, teamId: string, ref: EndpointRef): Promise<Endpoint | null> {
  if ("id" in ref && !isUuid(ref.id)) return null;
  return em.findOne(EndpointEntity, refFilter(teamId, ref));
}

export async function listEndpointsOf(em: EntityManager, teamId: string): Promise<Endpoint[]> {
  return em.find(EndpointEntity, { team: teamId }, { orderBy: { createdAt: "asc", id: "asc" } });
}

/** The job runner's kind for purging a deleted endpoint's events (the key is the endpoint's id). */
export const ENDPOINT_PURGE_JOB = "purge_endpoint";

/**
 * Deletes an endpoint owned by `teamId` at once; its events are purged in the background,
 * in bounded batches, by a purge_endpoint job that commits with the delete. The endpoint row
 * goes first: that waits for capture batches holding it and makes later ones find nothing
 * (404), so no event can arrive for it afterwards. Until the purge ends its events are
 * orphans nobody can list or open: every read joins the endpoint and its owner.
 * Returns the deleted endpoint's id, or undefined when the user has no such endpoint.
 */
export async function deleteOwnedEndpoint(em: EntityManager, teamId: string, ref: EndpointRef): Promise<string | undefined> {
  if ("id" in ref && !isUuid(ref.id)) return undefined;
  return em.transactional(async (tx) => {
    const deleted = await tx.execute<Array<{ id: string }>>(`delete from endpoints where ${"id" in ref ? "id" : "slug"} = ? and team_id = ? returning id`, [
      "id" in ref ? ref.id : ref.slug,
      teamId,
    ]);
    const endpointId = deleted[0]?.id;
    if (!endpointId) return undefined;
    await enqueueJobWith(tx, { kind: ENDPOINT_PURGE_JOB, key: endpointId });
    return endpointId;
  });
}

/** Replaces an endpoint's signing secret; false when the user has no such endpoint. */
export type EndpointChanges = Partial<
  Pick<
    Endpoint,
    | "name"
    | "stagingHost"
    | "signRequests"
    | "keepProxyHeaders"
    | "secret"
    | "retentionDays"
    | "customResponse"
    | "handshake"
    | "verification"
    | "dedup"
  >
>;

/** Applies changes to the user's endpoint; null when it has no such endpoint. */
export async function updateOwnedEndpoint(em: EntityManager, teamId: string, ref: EndpointRef, changes: EndpointChanges): Promise<Endpoint | null> {
  const endpoint = await findOwnedEndpoint(em, teamId, ref);
  if (!endpoint) return null;
  em.assign(endpoint, { ...changes, updatedAt: new Date() });
  await em.flush();
  // A new signature or dedup rule gets a new version: capture batches written under the old one are redone.
  if (changes.verification !== undefined || changes.dedup !== undefined) await bumpEndpointRuleVersion(em, endpoint.id);
  return endpoint;
}

/** Counts a change of the endpoint's ingress or routing rules (see the capture writer); in SQL, so changes from several places add up. */
export async function bumpEndpointRuleVersion(em: EntityManager, endpointId: string): Promise<void> {
  await em.execute(`update endpoints set verification_version = verification_version + 1, updated_at = now() where id = ?`, [endpointId]);
}

/** The endpoint as stored now, its destinations' summary read again (after changes made in SQL). */
export async function reloadEndpoint(em: EntityManager, endpointId: string): Promise<Endpoint> {
  return em.findOneOrFail(EndpointEntity, { id: endpointId }, { refresh: true });
}

/** Tells every instance that an endpoint was created, changed or deleted (after commit). */
export async function announceEndpointChange(em: EntityManager, id: string, change: "created" | "updated" | "deleted"): Promise<void> {
  await em.execute("select pg_notify(?, ?)", [BUS_CHANNEL, JSON.stringify([{ type: "endpoint.changed", id, change }])]);
}
