import {
  auditChanges,
  auditFields,
  type AuditedFields,
  defaultDestinationName,
  endpointHealth,
  generateSigningSecret,
  generateSlug,
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
  changeFirstDestination,
  deleteOwnedEndpoint,
  endpointEventStats,
  endpointRetryPolicy,
  findOwnedEndpoint,
  insertEndpoint,
  listEndpointsOf,
  reloadEndpoint,
  updateOwnedEndpoint,
  DuplicateRowError,
  type Endpoint,
  type EndpointChanges,
  type EndpointRef,
} from "@rehook/db";
import { checkDestination } from "@rehook/delivery";
import { captureBaseOf, type ServiceContext } from "./context.js";
import { ingressChanges, ingressView, type IngressSettingsInput, type IngressView } from "./ingress-settings.js";
import { parseInput } from "./validation.js";
import { recordAudit, type AuditedBy } from "./audit.js";
import { createEndpointInput, endpointChangesInput } from "./schemas/endpoints.js";
export { MAX_PAUSE_AFTER_FAILURES, MAX_RETENTION_DAYS } from "./schemas/endpoints.js";

export type { EndpointRef };

/** An endpoint with its settings, delivery health and breaker state. Secrets show only as hints (see IngressView). */
export interface EndpointView extends IngressView {
  id: string;
  name: string;
  slug: string;
  /** Its capture URL: senders post here. */
  webhookUrl: string;
  destinationUrl: string | null;
  health: { state: HealthState; successRate: number | null };
  deliveredCount: number;
  failedCount: number;
  stagingHost: string | null;
  signRequests: boolean;
  /** Forward and replay the sender's X-Forwarded-*, Forwarded and X-Real-IP (off: dropped). */
  keepProxyHeaders: boolean;
  /** How many destinations it forwards to (destinationUrl, retryPolicy and the breaker fields below are its first one's). */
  destinationCount: number;
  /** Automatic retries of failed attempts (null: one attempt, a failure is final). */
  retryPolicy: RetryPolicy | null;
  /** The circuit breaker: pause forwarding after this many consecutive failed attempts (null: never). */
  pauseAfterFailures: number | null;
  consecutiveFailures: number;
  /** A destination's breaker tripped: its deliveries wait as pending until forwarding is resumed. */
  forwardingPaused: boolean;
  /** Why (with the destination's name when the endpoint has several). */
  pausedReason: string | null;
  pausedAt: Date | null;
  /** Days its events are kept (0: for ever); null: the server's RETENTION_DAYS (keptForDays says how long that is). */
  retentionDays: number | null;
  /** How long its events are kept, in days, whichever setting gives it (0: for ever). */
  keptForDays: number;
  createdAt: Date;
}

/** `captureBase`: where capture URLs start (CAPTURE_BASE_URL, else BASE_URL). */
export function endpointView(captureBase: string, endpoint: Endpoint, defaultRetentionDays: number): EndpointView {
  const deliveredCount = Number(endpoint.deliveredCount);
  const failedCount = Number(endpoint.failedCount);
  const health = endpointHealth(deliveredCount, failedCount);
  const routing = endpoint.routing;
  const paused = routing.firstPaused;
  return {
    id: endpoint.id,
    name: endpoint.name,
    slug: endpoint.slug,
    webhookUrl: webhookUrl(captureBase, endpoint.slug),
    destinationUrl: endpoint.destinationUrl,
    health: { state: health.state, successRate: health.successRate },
    deliveredCount,
    failedCount,
    stagingHost: endpoint.stagingHost,
    signRequests: endpoint.signRequests,
    keepProxyHeaders: endpoint.keepProxyHeaders,
    destinationCount: Number(routing.destinations),
    retryPolicy: endpointRetryPolicy(endpoint),
    pauseAfterFailures: routing.first?.pause_after_failures ?? null,
    consecutiveFailures: routing.first?.consecutive_failures ?? 0,
    forwardingPaused: paused !== null,
    pausedReason: paused && (routing.destinations > 1 ? `${paused.name}: ${paused.paused_reason ?? "paused"}` : paused.paused_reason),
    pausedAt: paused && new Date(paused.forwarding_paused_at),
    retentionDays: endpoint.retentionDays,
    keptForDays: endpoint.retentionDays ?? defaultRetentionDays,
    ...ingressView(endpoint),
    createdAt: endpoint.createdAt,
  };
}

/** Delivery and storage settings as both create and update take them. */
export interface DeliverySettings {
  retryPolicy?: RetryPolicy | null;
  pauseAfterFailures?: number | null;
  retentionDays?: number | null;
}

/** Validates an optional destination: blank means capture-only. */
export async function normaliseDestination(raw: string | null | undefined, policy: AddressPolicy): Promise<string | null> {
  if (raw === undefined || raw === null || raw.trim() === "") return null;
  const checked = await checkDestination(raw, policy);
  if (!checked.ok) throw new UserError("validation_failed", `destination URL refused: ${withPrivateDestinationHint(checked.reason)}`);
  return checked.url;
}

const SLUG_ATTEMPTS = 5;

/** Another user's endpoint answers exactly like a missing one. */
function noSuchEndpoint(ref: EndpointRef): UserError {
  return new UserError("not_found", "id" in ref ? notFoundMessage("endpoint", ref.id) : notFoundMessage("endpoint slug", ref.slug));
}

/** What the audit log compares of an endpoint; the ingress settings hold secrets and a body: "changed" only; the destination without its query values. */
const AUDITED_ENDPOINT_FIELDS = {
  fields: ["name", "destinationUrl", "stagingHost", "signRequests", "keepProxyHeaders", "retryPolicy", "pauseAfterFailures", "retentionDays", "response", "handshake", "verification", "dedup"],
  secrets: ["response", "handshake", "verification"],
  urls: ["destinationUrl"],
} as const satisfies AuditedFields<EndpointView>;

const endpointTarget = (endpoint: { id: string; name: string }) => ({ type: "endpoint" as const, id: endpoint.id, name: endpoint.name });

export async function createEndpoint(
  ctx: Pick<ServiceContext, "orm" | "baseUrl" | "captureBaseUrl" | "addressPolicy" | "retentionDays">,
  input: { teamId: string; by?: AuditedBy; name: string; destinationUrl?: string | null; signRequests?: boolean; keepProxyHeaders?: boolean } & DeliverySettings & IngressSettingsInput,
): Promise<EndpointView> {
  const parsed = parseInput(createEndpointInput, input);
  const { teamId } = input;
  const { name, retryPolicy, pauseAfterFailures, retentionDays } = parsed;
  const ingress = ingressChanges(parsed, null);
  const destinationUrl = await normaliseDestination(input.destinationUrl, ctx.addressPolicy);
  if (!destinationUrl) refuseDeliverySettingsWithoutDestination({ retryPolicy, pauseAfterFailures });
  // 36^8 suffixes make a collision rare; retrying a few times makes it a non-event.
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await ctx.orm.em.fork().transactional(async (em) => {
        const endpoint = await insertEndpoint(em, {
          id: uuidv7(),
          teamId,
          name,
          slug: generateSlug(name),
          destinationUrl,
          firstDestinationId: uuidv7(),
          secret: generateSigningSecret(),
          signRequests: input.signRequests ?? false,
          keepProxyHeaders: input.keepProxyHeaders ?? false,
          retryPolicy: retryPolicy ?? null,
          pauseAfterFailures: pauseAfterFailures ?? null,
          retentionDays: retentionDays ?? null,
          ...ingress,
        });
        const view = endpointView(captureBaseOf(ctx), endpoint, ctx.retentionDays);
        await recordAudit(em, input.by, { teamId, action: "endpoint.create", target: endpointTarget(view), changes: auditFields(view, AUDITED_ENDPOINT_FIELDS) });
        await announceEndpointChange(em, endpoint.id, "created");
        return view;
      });
    } catch (error) {
      if (!(error instanceof DuplicateRowError) || attempt >= SLUG_ATTEMPTS) throw error;
    }
  }
}

/** A listed endpoint: its view with its event total and when its newest event arrived. */
export interface EndpointListItem extends EndpointView {
  /** Its stored events, exactly (from the event_counts totals). */
  eventCount: number;
  /** When its newest event was received, or null before the first. */
  lastEventAt: Date | null;
}

export async function listEndpoints(ctx: Pick<ServiceContext, "orm" | "baseUrl" | "captureBaseUrl" | "retentionDays">, input: { teamId: string }): Promise<EndpointListItem[]> {
  // Two queries side by side, each on its own fork (an EntityManager is not shared between them).
  const [endpoints, stats] = await Promise.all([listEndpointsOf(ctx.orm.em.fork(), input.teamId), endpointEventStats(ctx.orm.em.fork(), input.teamId)]);
  return endpoints.map((endpoint) => {
    const stat = stats.get(endpoint.id);
    return {
      ...endpointView(captureBaseOf(ctx), endpoint, ctx.retentionDays),
      eventCount: stat?.eventCount ?? 0,
      // A UUIDv7 carries its millisecond: the id is the received time.
      lastEventAt: stat?.lastEventId ? uuidv7Timestamp(stat.lastEventId) : null,
    };
  });
}

export async function getEndpoint(ctx: Pick<ServiceContext, "orm" | "baseUrl" | "captureBaseUrl" | "retentionDays">, input: { teamId: string; endpoint: EndpointRef }): Promise<EndpointView> {
  const endpoint = await findOwnedEndpoint(ctx.orm.em.fork(), input.teamId, input.endpoint);
  if (!endpoint) throw noSuchEndpoint(input.endpoint);
  return endpointView(captureBaseOf(ctx), endpoint, ctx.retentionDays);
}

/**
 * Changes an endpoint's settings. A new destination applies to events captured from now on
 * (each event keeps the destination it was captured for); stored events can be replayed.
 */
export async function updateEndpoint(
  ctx: Pick<ServiceContext, "orm" | "baseUrl" | "captureBaseUrl" | "addressPolicy" | "retentionDays">,
  input: {
    teamId: string;
    by?: AuditedBy;
    endpoint: EndpointRef;
    changes: { name?: string; destinationUrl?: string | null; stagingHost?: string | null; signRequests?: boolean; keepProxyHeaders?: boolean } & DeliverySettings &
      IngressSettingsInput;
  },
): Promise<EndpointView> {
  const parsed = parseInput(endpointChangesInput, input.changes);
  const changes: EndpointChanges = {};
  if (parsed.name !== undefined) changes.name = parsed.name;
  // destination_url, retry_policy and pause_after_failures are the first destination's.
  const first: FirstDestinationChanges = {};
  if (parsed.destinationUrl !== undefined) first.url = await normaliseDestination(parsed.destinationUrl, ctx.addressPolicy);
  if (parsed.stagingHost !== undefined) changes.stagingHost = parsed.stagingHost === "" ? null : parsed.stagingHost;
  if (parsed.signRequests !== undefined) changes.signRequests = parsed.signRequests;
  if (parsed.keepProxyHeaders !== undefined) changes.keepProxyHeaders = parsed.keepProxyHeaders;
  // A new policy applies from each delivery's next attempt; a threshold applies from the next failure.
  if (parsed.retryPolicy !== undefined) first.retryPolicy = parsed.retryPolicy;
  if (parsed.pauseAfterFailures !== undefined) first.pauseAfterFailures = parsed.pauseAfterFailures;
  // A shorter retention applies at the next retention run (within ten minutes).
  if (parsed.retentionDays !== undefined) changes.retentionDays = parsed.retentionDays;
  return ctx.orm.em.fork().transactional(async (em) => {
    const saved = await findOwnedEndpoint(em, input.teamId, input.endpoint);
    if (!saved) throw noSuchEndpoint(input.endpoint);
    const before = endpointView(captureBaseOf(ctx), saved, ctx.retentionDays);
    // Saved secrets are kept when left out: the current settings are needed to merge with.
    if (parsed.response !== undefined || parsed.handshake !== undefined || parsed.verification !== undefined || parsed.dedup !== undefined) {
      Object.assign(changes, ingressChanges(parsed, saved));
    }
    // Without a (first) destination left, a retry policy or breaker would have nothing to apply to.
    if (first.url === null || (first.url === undefined && (first.retryPolicy || first.pauseAfterFailures))) {
      if (first.url === null || !saved.destinationUrl) refuseDeliverySettingsWithoutDestination(first);
    }
    const updated = await updateOwnedEndpoint(em, input.teamId, input.endpoint, changes);
    if (!updated) throw noSuchEndpoint(input.endpoint);
    if (Object.keys(first).length > 0) {
      await changeFirstDestination(em, updated.id, { ...first, newId: uuidv7(), name: defaultDestinationName });
    }
    const after = endpointView(captureBaseOf(ctx), await reloadEndpoint(em, updated.id), ctx.retentionDays);
    const changed = auditChanges(before, after, AUDITED_ENDPOINT_FIELDS);
    if (changed) await recordAudit(em, input.by, { teamId: input.teamId, action: "endpoint.update", target: endpointTarget(after), changes: changed });
    await announceEndpointChange(em, updated.id, "updated");
    return after;
  });
}

type FirstDestinationChanges = { url?: string | null; retryPolicy?: RetryPolicy | null; pauseAfterFailures?: number | null };

/**
 * An endpoint's retry policy and breaker are its first destination's: on an endpoint without
 * one they would be dropped, so they are refused instead (null, "none", is fine).
 */
function refuseDeliverySettingsWithoutDestination(settings: { retryPolicy?: RetryPolicy | null; pauseAfterFailures?: number | null }): void {
  const named = [settings.retryPolicy ? "retry_policy" : null, settings.pauseAfterFailures ? "pause_after_failures" : null].filter((name) => name !== null);
  if (named.length === 0) return;
  throw new UserError(
    "validation_failed",
    `${named.join(" and ")} ${named.length > 1 ? "apply" : "applies"} to the endpoint's destination: give a destination_url too, or set ${named.length > 1 ? "them" : "it"} on a destination.`,
  );
}

/** Permanently removes an endpoint at once (its capture URL answers 404 from then on); its events are purged in the background. */
export async function deleteEndpoint(ctx: Pick<ServiceContext, "orm">, input: { teamId: string; by?: AuditedBy; endpoint: EndpointRef }): Promise<void> {
  await ctx.orm.em.fork().transactional(async (em) => {
    const endpoint = await findOwnedEndpoint(em, input.teamId, input.endpoint);
    const deletedId = endpoint && (await deleteOwnedEndpoint(em, input.teamId, { id: endpoint.id }));
    if (!endpoint || !deletedId) throw noSuchEndpoint(input.endpoint);
    await recordAudit(em, input.by, { teamId: input.teamId, action: "endpoint.delete", target: endpointTarget(endpoint), changes: { slug: endpoint.slug } });
    await announceEndpointChange(em, deletedId, "deleted");
  });
}

/** An endpoint's signing secret, optionally replaced by a new one first (the old stops at once). */
export async function endpointSecret(
  ctx: Pick<ServiceContext, "orm">,
  input: { teamId: string; by?: AuditedBy; endpoint: EndpointRef; rotate?: boolean },
): Promise<{ id: string; slug: string; secret: string }> {
  return ctx.orm.em.fork().transactional(async (em) => {
    const endpoint = input.rotate
      ? await updateOwnedEndpoint(em, input.teamId, input.endpoint, { secret: generateSigningSecret() })
      : await findOwnedEndpoint(em, input.teamId, input.endpoint);
    if (!endpoint) throw noSuchEndpoint(input.endpoint);
    // Seeing a secret is recorded too (never the secret itself).
    await recordAudit(em, input.by, { teamId: input.teamId, action: input.rotate ? "endpoint.secret_rotate" : "endpoint.secret_reveal", target: endpointTarget(endpoint) });
    return { id: endpoint.id, slug: endpoint.slug, secret: endpoint.secret };
  });
}
