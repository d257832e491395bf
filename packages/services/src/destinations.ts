import {
  auditChanges,
  auditFields,
  type AuditedFields,
  compileFilter,
  defaultDestinationName,
  MAX_DESTINATIONS_PER_ENDPOINT,
  notFoundMessage,
  retryPolicyFromColumns,
  UserError,
  uuidv7,
  type RetryPolicy,
  type RoutingFilter,
} from "@rehook/core";
import {
  announceEndpointChange,
  deleteDestination as deleteStoredDestination,
  findDestination,
  findOwnedEndpoint,
  findReplaySource,
  insertDestination,
  listDestinationsOf,
  resumeOwnedEndpoint,
  updateDestination as updateStoredDestination,
  type Destination,
  type DestinationSettings,
} from "@rehook/db";
import type { ServiceContext } from "./context.js";
import { normaliseDestination } from "./endpoints.js";
import { createDestinationInput, destinationChangesInput, type CreateDestinationInput, type DestinationChangesInput } from "./schemas/destinations.js";
import { parseInput } from "./validation.js";
import { recordAudit, type AuditedBy } from "./audit.js";
import { evaluateFilters } from "./capture-routing.js";

/*
 * An endpoint's destinations: where its events are forwarded, each with its own filter,
 * pace, order, retries and circuit breaker. Changes take effect for events captured from
 * then on (filters are checked at capture) and for every delivery's next attempt (URL,
 * retries, pace); every instance hears of them at once (the endpoint's rule version).
 */

export interface DestinationView {
  id: string;
  endpointId: string;
  name: string;
  url: string;
  enabled: boolean;
  filter: RoutingFilter | null;
  rateLimitPerSecond: number | null;
  ordered: boolean;
  retryPolicy: RetryPolicy | null;
  pauseAfterFailures: number | null;
  consecutiveFailures: number;
  forwardingPaused: boolean;
  pausedReason: string | null;
  pausedAt: Date | null;
  createdAt: Date;
}

export function destinationView(destination: Destination): DestinationView {
  return {
    id: destination.id,
    endpointId: destination.endpoint.id,
    name: destination.name,
    url: destination.url,
    enabled: destination.enabled,
    filter: destination.filter,
    rateLimitPerSecond: destination.rateLimitPerSecond,
    ordered: destination.ordered,
    retryPolicy: retryPolicyFromColumns(destination.retryMaxAttempts, destination.retryInitialDelayMs, destination.retryMaxDelayMs),
    pauseAfterFailures: destination.pauseAfterFailures,
    consecutiveFailures: destination.consecutiveFailures,
    forwardingPaused: destination.forwardingPausedAt !== null,
    pausedReason: destination.pausedReason,
    pausedAt: destination.forwardingPausedAt,
    createdAt: destination.createdAt,
  };
}

type Context = Pick<ServiceContext, "orm" | "addressPolicy">;
type EndpointScope = { teamId: string; endpointId: string; by?: AuditedBy };

/** What the audit log compares of a destination (its filter in full: a filter is a rule, not a secret). */
const AUDITED_DESTINATION_FIELDS = {
  fields: ["name", "url", "enabled", "filter", "rateLimitPerSecond", "ordered", "retryPolicy", "pauseAfterFailures"],
  urls: ["url"],
} as const satisfies AuditedFields<DestinationView>;

const destinationTarget = (destination: { id: string; name: string }) => ({ type: "destination" as const, id: destination.id, name: destination.name });

/** The endpoint's id when the team has it; another team's answers exactly like a missing one. */
async function ownedEndpointId(ctx: Pick<ServiceContext, "orm">, input: EndpointScope): Promise<string> {
  const endpoint = await findOwnedEndpoint(ctx.orm.em.fork(), input.teamId, { id: input.endpointId });
  if (!endpoint) throw new UserError("not_found", notFoundMessage("endpoint", input.endpointId));
  return endpoint.id;
}

const noSuchDestination = (id: string) => new UserError("not_found", notFoundMessage("destination", id));

/** The settings to store, the URL checked against the address policy (as forwarding checks it). */
async function storedSettings(ctx: Context, parsed: DestinationChangesInput): Promise<DestinationSettings> {
  const { url, ...rest } = parsed;
  const settings: DestinationSettings = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined));
  if (url !== undefined) {
    const checked = await normaliseDestination(url, ctx.addressPolicy);
    if (!checked) throw new UserError("validation_failed", "the destination URL is required");
    settings.url = checked;
  }
  return settings;
}

export async function listDestinations(ctx: Pick<ServiceContext, "orm">, input: EndpointScope): Promise<DestinationView[]> {
  const endpointId = await ownedEndpointId(ctx, input);
  return (await listDestinationsOf(ctx.orm.em.fork(), endpointId)).map(destinationView);
}

export async function createDestination(ctx: Context, input: EndpointScope & CreateDestinationInput): Promise<DestinationView> {
  const { teamId, endpointId: id, by, ...fields } = input;
  const parsed = parseInput(createDestinationInput, fields);
  const endpointId = await ownedEndpointId(ctx, { teamId, endpointId: id });
  const settings = await storedSettings(ctx, parsed);
  const url = settings.url!;
  return ctx.orm.em.fork().transactional(async (em) => {
    const result = await insertDestination(em, { ...settings, id: uuidv7(), endpointId, url, name: settings.name ?? defaultDestinationName(url) });
    if (result.kind === "too_many") {
      throw new UserError("conflict", `An endpoint forwards to at most ${MAX_DESTINATIONS_PER_ENDPOINT} destinations; remove one before adding another.`);
    }
    const view = destinationView(result.destination);
    await recordAudit(em, by, { teamId, action: "destination.create", target: destinationTarget(view), changes: { endpoint_id: endpointId, ...auditFields(view, AUDITED_DESTINATION_FIELDS) } });
    await announceEndpointChange(em, endpointId, "updated");
    return view;
  });
}

export async function updateDestination(ctx: Context, input: EndpointScope & { destinationId: string; changes: DestinationChangesInput }): Promise<DestinationView> {
  const parsed = parseInput(destinationChangesInput, input.changes);
  const endpointId = await ownedEndpointId(ctx, input);
  const settings = await storedSettings(ctx, parsed);
  return ctx.orm.em.fork().transactional(async (em) => {
    const stored = await findDestination(em, endpointId, input.destinationId);
    if (!stored) throw noSuchDestination(input.destinationId);
    const before = destinationView(stored);
    const destination = Object.keys(settings).length === 0 ? stored : await updateStoredDestination(em, endpointId, input.destinationId, settings);
    if (!destination) throw noSuchDestination(input.destinationId);
    const after = destinationView(destination);
    const changed = auditChanges(before, after, AUDITED_DESTINATION_FIELDS);
    if (changed) await recordAudit(em, input.by, { teamId: input.teamId, action: "destination.update", target: destinationTarget(after), changes: { endpoint_id: endpointId, ...changed } });
    await announceEndpointChange(em, endpointId, "updated");
    return after;
  });
}

/** Removes a destination; its pending deliveries are cancelled, its finished ones stay in their events' history. */
export async function deleteDestination(ctx: Pick<ServiceContext, "orm">, input: EndpointScope & { destinationId: string }): Promise<void> {
  const endpointId = await ownedEndpointId(ctx, input);
  await ctx.orm.em.fork().transactional(async (em) => {
    const stored = await findDestination(em, endpointId, input.destinationId);
    if (!stored || !(await deleteStoredDestination(em, endpointId, input.destinationId))) throw noSuchDestination(input.destinationId);
    await recordAudit(em, input.by, { teamId: input.teamId, action: "destination.delete", target: destinationTarget(stored), changes: { endpoint_id: endpointId, url: stored.url } });
    await announceEndpointChange(em, endpointId, "updated");
  });
}

/**
 * Resumes one paused destination: its breaker goes half-open, its count kept, so one probe goes
 * first and its waiting deliveries follow, oldest first, once a probe is delivered (see
 * resumeOwnedEndpoint). A destination that is not paused is left as it is.
 */
export async function resumeDestination(ctx: Pick<ServiceContext, "orm">, input: EndpointScope & { destinationId: string }): Promise<DestinationView> {
  const endpointId = await ownedEndpointId(ctx, input);
  return ctx.orm.em.fork().transactional(async (em) => {
    const resumed = await resumeOwnedEndpoint(em, input.teamId, endpointId, input.destinationId);
    const destination = resumed && resumed.destinations > 0 ? await findDestination(em, endpointId, input.destinationId) : null;
    if (!destination) throw noSuchDestination(input.destinationId);
    await em.refresh(destination);
    const wasPaused = resumed!.resumed[0];
    await recordAudit(em, input.by, {
      teamId: input.teamId,
      action: "destination.resume",
      target: destinationTarget(destination),
      changes: { endpoint_id: endpointId, rescheduled: resumed!.rescheduled, was_paused: wasPaused !== undefined, consecutive_failures: destination.consecutiveFailures },
    });
    await announceEndpointChange(em, endpointId, "updated");
    return destinationView(destination);
  });
}

/**
 * Whether a filter lets one of the team's stored events through: the dashboard's "test this
 * filter". Evaluated as a capture would (the same work budget, off the event loop for a large
 * body); `workBudgetExceeded`: it was cut short, so it does not match.
 */
export async function testFilter(
  ctx: Pick<ServiceContext, "orm" | "capturePool">,
  input: { teamId: string; eventId: string; filter: unknown },
): Promise<{ matches: boolean; workBudgetExceeded: boolean }> {
  const filter = parseInput(createDestinationInput.shape.filter, input.filter);
  const source = await findReplaySource(ctx.orm.em.fork(), input.teamId, input.eventId);
  if (!source) throw new UserError("not_found", notFoundMessage("event", input.eventId));
  if (!filter) return { matches: true, workBudgetExceeded: false };
  const set = { filters: [{ id: "tested", filter: compileFilter(filter) }], filtersJson: JSON.stringify([{ id: "tested", filter }]) };
  const routing = await evaluateFilters(ctx, set, { method: source.method, path: source.path, query: source.query, headers: source.headers, body: source.body });
  return { matches: routing.matched.length > 0, workBudgetExceeded: routing.cutShort.length > 0 };
}
