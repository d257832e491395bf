import {
  endpointHealth,
  endpointNameSchema,
  generateSigningSecret,
  generateSlug,
  retryPolicyProblem,
  notFoundMessage,
  UserError,
  uuidv7,
  uuidv7Timestamp,
  webhookUrl,
  withPrivateDestinationHint,
  type AddressPolicy,
  type HealthState,
  type RetryPolicy,
} from "@rehook/core";
import {
  announceEndpointChange,
  deleteOwnedEndpoint,
  endpointEventStats,
  endpointRetryPolicy,
  findOwnedEndpoint,
  insertEndpoint,
  listEndpointsOf,
  retryPolicyColumns,
  updateOwnedEndpoint,
  DuplicateRowError,
  type Endpoint,
  type EndpointChanges,
  type EndpointRef,
} from "@rehook/db";
import { checkDestination } from "@rehook/delivery";
import { z } from "zod";
import { captureBaseOf, type ServiceContext } from "./context.js";
import { ingressChanges, ingressSettingsSchema, ingressView, type IngressSettingsInput, type IngressView } from "./ingress-settings.js";
import { parseInput } from "./validation.js";

export type { EndpointRef };

export interface EndpointView extends IngressView {
  id: string;
  name: string;
  slug: string;
  webhook_url: string;
  destination_url: string | null;
  health: { state: HealthState; success_rate: number | null };
  delivered_count: number;
  failed_count: number;
  staging_host: string | null;
  sign_requests: boolean;
  /** Forward and replay the sender's X-Forwarded-*, Forwarded and X-Real-IP (off: dropped). */
  keep_proxy_headers: boolean;
  /** Automatic retries of failed attempts (null: one attempt, a failure is final). */
  retry_policy: { max_attempts: number; initial_delay_ms: number; max_delay_ms: number } | null;
  /** The circuit breaker: pause forwarding after this many consecutive failed attempts (null: never). */
  pause_after_failures: number | null;
  consecutive_failures: number;
  /** The breaker tripped: events wait as pending until forwarding is resumed. */
  forwarding_paused: boolean;
  paused_reason: string | null;
  paused_at: string | null;
  /** Days its events are kept (0: for ever); null: the server's RETENTION_DAYS (kept_for_days says how long that is). */
  retention_days: number | null;
  /** How long its events are kept, in days, whichever setting gives it (0: for ever). */
  kept_for_days: number;
  created_at: string;
}

/** `captureBase`: where capture URLs start (CAPTURE_BASE_URL, else BASE_URL). */
export function endpointView(captureBase: string, endpoint: Endpoint, defaultRetentionDays: number): EndpointView {
  const delivered = Number(endpoint.deliveredCount);
  const failed = Number(endpoint.failedCount);
  const health = endpointHealth(delivered, failed);
  return {
    id: endpoint.id,
    name: endpoint.name,
    slug: endpoint.slug,
    webhook_url: webhookUrl(captureBase, endpoint.slug),
    destination_url: endpoint.destinationUrl,
    health: { state: health.state, success_rate: health.successRate },
    delivered_count: delivered,
    failed_count: failed,
    staging_host: endpoint.stagingHost,
    sign_requests: endpoint.signRequests,
    keep_proxy_headers: endpoint.keepProxyHeaders,
    retry_policy: retryPolicyView(endpointRetryPolicy(endpoint)),
    pause_after_failures: endpoint.pauseAfterFailures,
    consecutive_failures: endpoint.consecutiveFailures,
    forwarding_paused: endpoint.forwardingPausedAt !== null,
    paused_reason: endpoint.pausedReason,
    paused_at: endpoint.forwardingPausedAt?.toISOString() ?? null,
    retention_days: endpoint.retentionDays,
    kept_for_days: endpoint.retentionDays ?? defaultRetentionDays,
    ...ingressView(endpoint),
    created_at: endpoint.createdAt.toISOString(),
  };
}

function retryPolicyView(policy: RetryPolicy | null): EndpointView["retry_policy"] {
  return policy && { max_attempts: policy.maxAttempts, initial_delay_ms: policy.initialDelayMs, max_delay_ms: policy.maxDelayMs };
}

/** A retry policy as given (null: one attempt), checked against the limits with the field named. */
const retryPolicySchema = z
  .object({ maxAttempts: z.number(), initialDelayMs: z.number(), maxDelayMs: z.number() })
  .nullable()
  .superRefine((policy, issue) => {
    const problem = policy && retryPolicyProblem(policy);
    if (problem) issue.addIssue({ code: "custom", message: problem });
  });

/** The breaker's threshold in consecutive failed attempts (null: never pause). */
export const MAX_PAUSE_AFTER_FAILURES = 10_000;
const pauseAfterFailuresSchema = z
  .number()
  .int(`pause_after_failures must be a whole number from 1 to ${MAX_PAUSE_AFTER_FAILURES}, or null`)
  .min(1, `pause_after_failures must be a whole number from 1 to ${MAX_PAUSE_AFTER_FAILURES}, or null`)
  .max(MAX_PAUSE_AFTER_FAILURES, `pause_after_failures must be a whole number from 1 to ${MAX_PAUSE_AFTER_FAILURES}, or null`)
  .nullable();

/** Days an endpoint keeps its events: 0 for ever, null the server's RETENTION_DAYS. */
export const MAX_RETENTION_DAYS = 3_650;
const retentionDaysMessage = `retention_days must be a whole number of days from 0 (keep for ever) to ${MAX_RETENTION_DAYS}, or null (the server's default)`;
const retentionDaysSchema = z.number().int(retentionDaysMessage).min(0, retentionDaysMessage).max(MAX_RETENTION_DAYS, retentionDaysMessage).nullable();

/** Delivery and storage settings as both create and update take them. */
export interface DeliverySettings {
  retryPolicy?: RetryPolicy | null;
  pauseAfterFailures?: number | null;
  retentionDays?: number | null;
}

const createEndpointInput = ingressSettingsSchema.extend({
  userId: z.string().uuid(),
  name: endpointNameSchema,
  destinationUrl: z.string().nullish(),
  retryPolicy: retryPolicySchema.optional(),
  pauseAfterFailures: pauseAfterFailuresSchema.optional(),
  retentionDays: retentionDaysSchema.optional(),
});

/** Validates an optional destination: blank means capture-only. */
async function normaliseDestination(raw: string | null | undefined, policy: AddressPolicy): Promise<string | null> {
  if (raw === undefined || raw === null || raw.trim() === "") return null;
  const checked = await checkDestination(raw, policy);
  if (!checked.ok) throw new UserError("validation_failed", `destination URL refused: ${withPrivateDestinationHint(checked.reason)}`);
  return checked.url;
}

/** A bare host name for staging replays ("staging.example.com", optionally with a port). */
const stagingHostSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(253)
  .regex(/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*(:\d{1,5})?$/, "the staging hostname must be a host name like staging.example.com, without a scheme or path");

const SLUG_ATTEMPTS = 5;

/** Another user's endpoint answers exactly like a missing one. */
function noSuchEndpoint(ref: EndpointRef): UserError {
  return new UserError("not_found", "id" in ref ? notFoundMessage("endpoint", ref.id) : notFoundMessage("endpoint slug", ref.slug));
}

export async function createEndpoint(
  ctx: Pick<ServiceContext, "orm" | "baseUrl" | "captureBaseUrl" | "addressPolicy" | "retentionDays">,
  input: { userId: string; name: string; destinationUrl?: string | null; signRequests?: boolean; keepProxyHeaders?: boolean } & DeliverySettings & IngressSettingsInput,
): Promise<EndpointView> {
  const parsed = parseInput(createEndpointInput, input);
  const { userId, name, retryPolicy, pauseAfterFailures, retentionDays } = parsed;
  const ingress = ingressChanges(parsed, null);
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
        keepProxyHeaders: input.keepProxyHeaders ?? false,
        retryPolicy: retryPolicy ?? null,
        pauseAfterFailures: pauseAfterFailures ?? null,
        retentionDays: retentionDays ?? null,
        ...ingress,
      });
      await announceEndpointChange(em, endpoint.id, "created");
      return endpointView(captureBaseOf(ctx), endpoint, ctx.retentionDays);
    } catch (error) {
      if (!(error instanceof DuplicateRowError) || attempt >= SLUG_ATTEMPTS) throw error;
    }
  }
}

/** A listed endpoint: its view with its event total and when its newest event arrived. */
export interface EndpointListItem extends EndpointView {
  /** Its stored events, exactly (from the event_counts totals). */
  event_count: number;
  /** When its newest event was received (ISO 8601), or null before the first. */
  last_event_at: string | null;
}

export async function listEndpoints(ctx: Pick<ServiceContext, "orm" | "baseUrl" | "captureBaseUrl" | "retentionDays">, input: { userId: string }): Promise<EndpointListItem[]> {
  // Two queries side by side, each on its own fork (an EntityManager is not shared between them).
  const [endpoints, stats] = await Promise.all([listEndpointsOf(ctx.orm.em.fork(), input.userId), endpointEventStats(ctx.orm.em.fork(), input.userId)]);
  return endpoints.map((endpoint) => {
    const stat = stats.get(endpoint.id);
    return {
      ...endpointView(captureBaseOf(ctx), endpoint, ctx.retentionDays),
      event_count: stat?.eventCount ?? 0,
      // A UUIDv7 carries its millisecond: the id is the received time.
      last_event_at: stat?.lastEventId ? uuidv7Timestamp(stat.lastEventId).toISOString() : null,
    };
  });
}

export async function getEndpoint(ctx: Pick<ServiceContext, "orm" | "baseUrl" | "captureBaseUrl" | "retentionDays">, input: { userId: string; endpoint: EndpointRef }): Promise<EndpointView> {
  const endpoint = await findOwnedEndpoint(ctx.orm.em.fork(), input.userId, input.endpoint);
  if (!endpoint) throw noSuchEndpoint(input.endpoint);
  return endpointView(captureBaseOf(ctx), endpoint, ctx.retentionDays);
}

const updateEndpointInput = ingressSettingsSchema.extend({
  name: endpointNameSchema.optional(),
  destinationUrl: z.string().nullish(),
  stagingHost: z.union([stagingHostSchema, z.literal(""), z.null()]).optional(),
  signRequests: z.boolean().optional(),
  keepProxyHeaders: z.boolean().optional(),
  retryPolicy: retryPolicySchema.optional(),
  pauseAfterFailures: pauseAfterFailuresSchema.optional(),
  retentionDays: retentionDaysSchema.optional(),
});

/**
 * Changes an endpoint's settings. A new destination applies to events captured from now on
 * (each event keeps the destination it was captured for); stored events can be replayed.
 */
export async function updateEndpoint(
  ctx: Pick<ServiceContext, "orm" | "baseUrl" | "captureBaseUrl" | "addressPolicy" | "retentionDays">,
  input: {
    userId: string;
    endpoint: EndpointRef;
    changes: { name?: string; destinationUrl?: string | null; stagingHost?: string | null; signRequests?: boolean; keepProxyHeaders?: boolean } & DeliverySettings &
      IngressSettingsInput;
  },
): Promise<EndpointView> {
  const parsed = parseInput(updateEndpointInput, input.changes);
  const changes: EndpointChanges = {};
  if (parsed.name !== undefined) changes.name = parsed.name;
  if (parsed.destinationUrl !== undefined) changes.destinationUrl = await normaliseDestination(parsed.destinationUrl, ctx.addressPolicy);
  if (parsed.stagingHost !== undefined) changes.stagingHost = parsed.stagingHost === "" ? null : parsed.stagingHost;
  if (parsed.signRequests !== undefined) changes.signRequests = parsed.signRequests;
  if (parsed.keepProxyHeaders !== undefined) changes.keepProxyHeaders = parsed.keepProxyHeaders;
  // A new policy applies from each event's next attempt; a threshold applies from the next failure.
  if (parsed.retryPolicy !== undefined) Object.assign(changes, retryPolicyColumns(parsed.retryPolicy));
  if (parsed.pauseAfterFailures !== undefined) changes.pauseAfterFailures = parsed.pauseAfterFailures;
  // A shorter retention applies at the next retention run (within ten minutes).
  if (parsed.retentionDays !== undefined) changes.retentionDays = parsed.retentionDays;
  const em = ctx.orm.em.fork();
  // Saved secrets are kept when left out: the current settings are needed to merge with.
  if (parsed.response !== undefined || parsed.handshake !== undefined || parsed.verification !== undefined) {
    const saved = await findOwnedEndpoint(em, input.userId, input.endpoint);
    if (!saved) throw noSuchEndpoint(input.endpoint);
    Object.assign(changes, ingressChanges(parsed, saved));
  }
  const endpoint = await updateOwnedEndpoint(em, input.userId, input.endpoint, changes);
  if (!endpoint) throw noSuchEndpoint(input.endpoint);
  await announceEndpointChange(em, endpoint.id, "updated");
  return endpointView(captureBaseOf(ctx), endpoint, ctx.retentionDays);
}

/** Permanently removes an endpoint at once (its capture URL answers 404 from then on); its events are purged in the background. */
export async function deleteEndpoint(ctx: Pick<ServiceContext, "orm">, input: { userId: string; endpoint: EndpointRef }): Promise<void> {
  const em = ctx.orm.em.fork();
  const deletedId = await deleteOwnedEndpoint(em, input.userId, input.endpoint);
  if (!deletedId) throw noSuchEndpoint(input.endpoint);
  await announceEndpointChange(em, deletedId, "deleted");
}

/** An endpoint's signing secret, optionally replaced by a new one first (the old stops at once). */
export async function endpointSecret(
  ctx: Pick<ServiceContext, "orm">,
  input: { userId: string; endpoint: EndpointRef; rotate?: boolean },
): Promise<{ id: string; slug: string; secret: string }> {
  const em = ctx.orm.em.fork();
  const endpoint = input.rotate
    ? await updateOwnedEndpoint(em, input.userId, input.endpoint, { secret: generateSigningSecret() })
    : await findOwnedEndpoint(em, input.userId, input.endpoint);
  if (!endpoint) throw noSuchEndpoint(input.endpoint);
  return { id: endpoint.id, slug: endpoint.slug, secret: endpoint.secret };
}
