import { endpointNameSchema, retryPolicyProblem } from "@rehook/core";
import { z } from "zod";
import { ingressSettingsSchema } from "../ingress-settings.js";

// An endpoint's settings, once: the use cases parse with them and the contracts
// (contracts/endpoints.ts) hand them to tRPC, REST and OpenAPI.

/** A retry policy as given (null: one attempt), checked against the limits with the field named. */
export const retryPolicySchema = z
  .object({ maxAttempts: z.number(), initialDelayMs: z.number(), maxDelayMs: z.number() })
  .nullable()
  .superRefine((policy, issue) => {
    const problem = policy && retryPolicyProblem(policy);
    if (problem) issue.addIssue({ code: "custom", message: problem });
  });

/** The breaker's threshold in consecutive failed attempts (null: never pause). */
export const MAX_PAUSE_AFTER_FAILURES = 10_000;
export const pauseAfterFailuresSchema = z
  .number()
  .int(`pause_after_failures must be a whole number from 1 to ${MAX_PAUSE_AFTER_FAILURES}, or null`)
  .min(1, `pause_after_failures must be a whole number from 1 to ${MAX_PAUSE_AFTER_FAILURES}, or null`)
  .max(MAX_PAUSE_AFTER_FAILURES, `pause_after_failures must be a whole number from 1 to ${MAX_PAUSE_AFTER_FAILURES}, or null`)
  .nullable();

/** Days an endpoint keeps its events: 0 for ever, null the server's RETENTION_DAYS. */
export const MAX_RETENTION_DAYS = 3_650;
const retentionDaysMessage = `retention_days must be a whole number of days from 0 (keep for ever) to ${MAX_RETENTION_DAYS}, or null (the server's default)`;
export const retentionDaysSchema = z.number().int(retentionDaysMessage).min(0, retentionDaysMessage).max(MAX_RETENTION_DAYS, retentionDaysMessage).nullable();

/** A bare host name for staging replays ("staging.example.com", optionally with a port). */
const stagingHostSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(253)
  .regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*(:\d{1,5})?$/, "the staging hostname must be a host name like staging.example.com, without a scheme or path");

/** What creating an endpoint takes, in the order the API documents it. */
export const createEndpointInput = z.object({
  name: endpointNameSchema,
  destinationUrl: z.string().nullish(),
  keepProxyHeaders: z.boolean().optional(),
  retryPolicy: retryPolicySchema.optional(),
  pauseAfterFailures: pauseAfterFailuresSchema.optional(),
  retentionDays: retentionDaysSchema.optional(),
  ...ingressSettingsSchema.shape,
});

/** What a change of an endpoint may name (a field left out stays as it is; null clears it). */
export const endpointChangesInput = z.object({
  name: endpointNameSchema.optional(),
  destinationUrl: z.string().nullish(),
  stagingHost: z.union([stagingHostSchema, z.literal(""), z.null()]).optional(),
  signRequests: z.boolean().optional(),
  keepProxyHeaders: z.boolean().optional(),
  retryPolicy: retryPolicySchema.optional(),
  pauseAfterFailures: pauseAfterFailuresSchema.optional(),
  retentionDays: retentionDaysSchema.optional(),
  ...ingressSettingsSchema.shape,
});
export type EndpointChangesInput = z.input<typeof endpointChangesInput>;
