import type { EntityManager } from "@mikro-orm/postgresql";
import { EndpointEntity, UserEntity, type Endpoint } from "../entities/index.js";
import { BUS_CHANNEL } from "../event-bus.js";

export interface NewEndpoint {
  id: string;
  userId: string;
  name: string;
  slug: string;
  destinationUrl: string | null;
  secret: string;
  signRequests: boolean;
}

export async function insertEndpoint(em: EntityManager, input: NewEndpoint): Promise<Endpoint> {
  const now = new Date();
  const endpoint = em.create(EndpointEntity, {
    id: input.id,
    user: em.getReference(UserEntity, input.userId),
    name: input.name,
    slug: input.slug,
    destinationUrl: input.destinationUrl,
    secret: input.secret,
    signRequests: input.signRequests,
    stagingHost: null,
    deliveredCount: 0,
    failedCount: 0,
    createdAt: now,
    updatedAt: now,
  });
  await em.persistAndFlush(endpoint);
  return endpoint;
}

export async function findEndpointBySlug(em: EntityManager, userId: string, slug: string): Promise<Endpoint | null> {
  return em.findOne(EndpointEntity, { slug, user: userId });
}

/**
 * Deletes an endpoint owned by `userId` with all its events (and, by cascade, their replays).
 * The endpoint row goes first: that waits for capture batches holding it and makes later
 * ones find nothing, so no event can arrive for it after the events are deleted.
 * Returns the deleted endpoint's id, or undefined when the user has no such endpoint.
 */
export async function deleteEndpointBySlug(em: EntityManager, userId: string, slug: string): Promise<string | undefined> {
  return em.transactional(async (tx) => {
    const connection = tx.getConnection();
    const deleted = await connection.execute<Array<{ id: string }>>(
      "delete from endpoints where slug = ? and user_id = ? returning id",
      [slug, userId],
    );
    const endpointId = deleted[0]?.id;
    if (!endpointId) return undefined;
    await connection.execute("delete from events where endpoint_id = ?", [endpointId]);
    return endpointId;
  });
}

/** Replaces an endpoint's signing secret; false when the user has no such endpoint. */
export async function replaceEndpointSecret(em: EntityManager, userId: string, slug: string, secret: string): Promise<boolean> {
  const updated = await em.nativeUpdate(EndpointEntity, { slug, user: userId }, { secret, updatedAt: new Date() });
  return updated > 0;
}

/** Tells every instance that an endpoint was created, changed or deleted (after commit). */
export async function announceEndpointChange(em: EntityManager, id: string, change: "created" | "updated" | "deleted"): Promise<void> {
  await em.getConnection().execute("select pg_notify(?, ?)", [BUS_CHANNEL, JSON.stringify([{ type: "endpoint.changed", id, change }])]);
}
