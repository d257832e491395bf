import {
  endpointNameSchema,
  generateSigningSecret,
  generateSlug,
  UserError,
  uuidv7,
  webhookUrl,
  type AddressPolicy,
} from "@rehook/core";
import {
  announceEndpointChange,
  deleteEndpointBySlug,
  findEndpointBySlug,
  insertEndpoint,
  replaceEndpointSecret,
  UniqueConstraintViolationException,
  type Endpoint,
} from "@rehook/db";
import { checkDestination } from "@rehook/delivery";
import { z } from "zod";
import type { ServiceContext } from "./context.js";
import { parseInput } from "./validation.js";

export interface EndpointView {
  id: string;
  name: string;
  slug: string;
  webhook_url: string;
  destination_url: string | null;
}

export function endpointView(baseUrl: string, endpoint: Endpoint): EndpointView {
  return {
    id: endpoint.id,
    name: endpoint.name,
    slug: endpoint.slug,
    webhook_url: webhookUrl(baseUrl, endpoint.slug),
    destination_url: endpoint.destinationUrl,
  };
}

const createEndpointInput = z.object({
  userId: z.string().uuid(),
  name: endpointNameSchema,
  destinationUrl: z.string().nullish(),
});

/** Validates an optional destination: blank means capture-only. */
async function normaliseDestination(raw: string | null | undefined, policy: AddressPolicy): Promise<string | null> {
  if (raw === undefined || raw === null || raw.trim() === "") return null;
  const checked = await checkDestination(raw, policy);
  if (!checked.ok) throw new UserError("validation_failed", `destination URL refused: ${checked.reason}`);
  return checked.url;
}

const SLUG_ATTEMPTS = 5;

/** Another user's endpoint answers exactly like a missing one. */
function noSuchEndpoint(slug: string): UserError {
  return new UserError("not_found", `no endpoint with slug ${slug}`);
}

export async function createEndpoint(
  ctx: Pick<ServiceContext, "orm" | "baseUrl" | "addressPolicy">,
  input: { userId: string; name: string; destinationUrl?: string | null; signRequests?: boolean },
): Promise<EndpointView> {
  const { userId, name } = parseInput(createEndpointInput, input);
  const destinationUrl = await normaliseDestination(input.destinationUrl, ctx.addressPolicy);
  // 36^8 suffixes make a collision rare; retrying a few times makes it a non-event.
  for (let attempt = 1; ; attempt += 1) {
    const em = ctx.orm.em.fork();
    try {
      const endpoint = await insertEndpoint(em, {
        id: uuidv7(),
        userId,
        name,
        slug: generateSlug(name),
        destinationUrl,
        secret: generateSigningSecret(),
        signRequests: input.signRequests ?? false,
      });
      await announceEndpointChange(em, endpoint.id, "created");
      return endpointView(ctx.baseUrl, endpoint);
    } catch (error) {
      if (!(error instanceof UniqueConstraintViolationException) || attempt >= SLUG_ATTEMPTS) throw error;
    }
  }
}

/** Permanently removes an endpoint and all its events; its capture URL answers 404 from then on. */
export async function deleteEndpoint(ctx: Pick<ServiceContext, "orm">, input: { userId: string; slug: string }): Promise<void> {
  const em = ctx.orm.em.fork();
  const deletedId = await deleteEndpointBySlug(em, input.userId, input.slug);
  if (!deletedId) throw noSuchEndpoint(input.slug);
  await announceEndpointChange(em, deletedId, "deleted");
}

/** An endpoint's signing secret, optionally replaced by a new one first (the old stops at once). */
export async function endpointSecret(
  ctx: Pick<ServiceContext, "orm">,
  input: { userId: string; slug: string; rotate?: boolean },
): Promise<{ slug: string; secret: string }> {
  const em = ctx.orm.em.fork();
  if (input.rotate) {
    const secret = generateSigningSecret();
    if (!(await replaceEndpointSecret(em, input.userId, input.slug, secret))) throw noSuchEndpoint(input.slug);
    return { slug: input.slug, secret };
  }
  const endpoint = await findEndpointBySlug(em, input.userId, input.slug);
  if (!endpoint) throw noSuchEndpoint(input.slug);
  return { slug: endpoint.slug, secret: endpoint.secret };
}
