import { destinationNameSchema, MAX_RATE_LIMIT_PER_SECOND, routingFilterSchema } from "@rehook/core";
import { z } from "zod";
import { pauseAfterFailuresSchema, retryPolicySchema } from "./endpoints.js";

// A destination's settings, once: the use cases parse with them and the contracts hand them to tRPC, REST and OpenAPI.

const rateLimitMessage = `rate_limit_per_second must be a whole number from 1 to ${MAX_RATE_LIMIT_PER_SECOND.toLocaleString("en-US")}, or null (no limit)`;
export const rateLimitSchema = z.number().int(rateLimitMessage).min(1, rateLimitMessage).max(MAX_RATE_LIMIT_PER_SECOND, rateLimitMessage).nullable();

const settings = {
  name: destinationNameSchema.optional(),
  enabled: z.boolean().optional(),
  filter: routingFilterSchema.nullable().optional(),
  rateLimitPerSecond: rateLimitSchema.optional(),
  ordered: z.boolean().optional(),
  retryPolicy: retryPolicySchema.optional(),
  pauseAfterFailures: pauseAfterFailuresSchema.optional(),
};

/** What adding a destination takes: a URL, the rest optional (its name defaults to the URL's host). */
export const createDestinationInput = z.object({ url: z.string(), ...settings });
export type CreateDestinationInput = z.input<typeof createDestinationInput>;

/** What a change names (a field left out stays as it is; null clears it). */
export const destinationChangesInput = z.object({ url: z.string().optional(), ...settings });
export type DestinationChangesInput = z.input<typeof destinationChangesInput>;
