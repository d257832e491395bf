import type { EntityManager } from "@mikro-orm/postgresql";
import { EndpointEntity, UserEntity, type Endpoint } from "../entities/index.js";

export interface NewEndpoint {
  id: string;
  userId: string;
  name: string;
  slug: string;
  destinationUrl: string | null;
  secret: string;
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
    signRequests: false,
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
 * Deletes an endpoint owned by `userId` and, by cascade, all its events and replays.
 * Returns false when there is no such endpoint for that user.
 */
export async function deleteEndpointBySlug(em: EntityManager, userId: string, slug: string): Promise<boolean> {
  const deleted = await em.nativeDelete(EndpointEntity, { slug, user: userId });
  return deleted > 0;
}
