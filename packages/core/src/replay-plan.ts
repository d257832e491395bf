import { editedReplayTarget, type ReplayEnvironment, type ReplayPathEdits } from "./replay-target.js";

/**
 * Where a replay request goes: the named environments of replay-target.ts, plus the event's
 * own destinations as a set. `matched`: every destination the event matched (it has a
 * delivery there), one attempt each; `failed`: only those whose delivery failed and is not
 * resolved yet.
 */
export const REPLAY_TARGETS = ["original", "staging", "local", "custom", "matched", "failed"] as const;
export type ReplayTargetName = (typeof REPLAY_TARGETS)[number];

/** The targets that make one attempt per destination (the answer is a list). */
export const FAN_OUT_TARGETS: readonly ReplayTargetName[] = ["matched", "failed"];

/** One of the endpoint's destinations as it is now. */
export interface PlanDestination {
  id: string;
  name: string;
  url: string;
}

/** One delivery of the event: a destination it matched, how that went, and whether a failure was resolved since. */
export interface PlanDelivery {
  destinationId: string;
  status: "pending" | "delivered" | "failed";
  resolved: boolean;
}

export interface ReplayPlanSource {
  /** The endpoint's destinations now, first position first. */
  destinations: PlanDestination[];
  /** The event's deliveries (none: captured before any destination, a duplicate, or capture-only). */
  deliveries: PlanDelivery[];
  stagingHost: string | null;
  /** The captured sub-path and raw query. */
  path: string;
  query: string;
}

/** What a replay request says about where to go (as the transports pass it on). */
export interface ReplayRequestTarget {
  /** Left out: custom when a URL is given, the destination when destinationId is. */
  target?: ReplayTargetName | null;
  destinationId?: string | null;
  customUrl?: string | null;
}

/** One attempt a replay makes: the environment it is recorded under, the endpoint destination (if one) and the URL. */
export interface PlannedSend {
  environment: ReplayEnvironment;
  destinationId: string | null;
  url: string;
}

export type ReplayPlan = { ok: true; target: ReplayTargetName; sends: PlannedSend[] } | { ok: false; kind: "invalid" | "impossible"; reason: string };

const invalid = (reason: string): ReplayPlan => ({ ok: false, kind: "invalid", reason });
const impossible = (reason: string): ReplayPlan => ({ ok: false, kind: "impossible", reason });

/** The target a request names, or the one its fields imply (destination_url alone: custom; destination_id alone: that destination). */
export function requestedTarget(request: ReplayRequestTarget): ReplayTargetName | null {
  if (request.target) return request.target;
  if (request.destinationId) return "original";
  if (request.customUrl) return "custom";
  return null;
}

const names = (destinations: PlanDestination[]) => destinations.map((destination) => destination.name).join(", ");

/**
 * The destinations the event matched that still exist, in the endpoint's order (a delivery
 * to a destination removed since has nowhere to go).
 */
export function matchedDestinations(source: Pick<ReplayPlanSource, "destinations" | "deliveries">, which: (delivery: PlanDelivery) => boolean = () => true): PlanDestination[] {
  const wanted = new Set(source.deliveries.filter(which).map((delivery) => delivery.destinationId));
  return source.destinations.filter((destination) => wanted.has(destination.id));
}

/** A failed delivery not resolved yet: what target "failed" sends to. */
export const isUnresolvedFailure = (delivery: PlanDelivery): boolean => delivery.status === "failed" && !delivery.resolved;

/**
 * The one destination "original" (and staging) means for this event, or why there is none:
 * the one destination it matched; when it matched none that still exists (captured before
 * any destination, a duplicate, or its destinations were removed), the endpoint's only
 * destination. Never the first of several: several is a question back to the caller (400).
 */
export function originalDestination(source: Pick<ReplayPlanSource, "destinations" | "deliveries">): { ok: true; destination: PlanDestination } | { ok: false; kind: "invalid" | "impossible"; reason: string } {
  const matched = matchedDestinations(source);
  if (matched.length === 1) return { ok: true, destination: matched[0]! };
  if (matched.length > 1) {
    return {
      ok: false,
      kind: "invalid",
      reason: `This event went to ${matched.length} destinations (${names(matched)}): choose one with destination_id, or send to all of them with target "matched" or to the failed ones with target "failed".`,
    };
  }
  if (source.destinations.length === 1) return { ok: true, destination: source.destinations[0]! };
  if (source.destinations.length === 0) return { ok: false, kind: "impossible", reason: "This endpoint has no destination to replay to: add one, or replay to a custom URL." };
  return {
    ok: false,
    kind: "invalid",
    reason: `This event matched none of the endpoint's ${source.destinations.length} destinations (${names(source.destinations)}): choose one with destination_id.`,
  };
}

/** The URL one destination gets (original or staging), with any edited path and query. */
function sendTo(environment: "original" | "staging", destination: PlanDestination, source: ReplayPlanSource, edits: ReplayPathEdits): { ok: true; send: PlannedSend } | { ok: false; plan: ReplayPlan } {
  const target = editedReplayTarget(environment, { destinationUrl: destination.url, stagingHost: source.stagingHost, path: source.path, query: source.query }, null, edits);
  if (!target.ok) return { ok: false, plan: { ok: false, kind: target.kind, reason: target.reason } };
  return { ok: true, send: { environment, destinationId: destination.id, url: target.url } };
}

function sendsTo(environment: "original" | "staging", destinations: PlanDestination[], source: ReplayPlanSource, edits: ReplayPathEdits, target: ReplayTargetName): ReplayPlan {
  const sends: PlannedSend[] = [];
  for (const destination of destinations) {
    const one = sendTo(environment, destination, source, edits);
    // Among several destinations, the reason names the one that cannot take it.
    if (!one.ok) return one.plan.ok || !FAN_OUT_TARGETS.includes(target) ? one.plan : { ...one.plan, reason: `${destination.name}: ${one.plan.reason}` };
    sends.push(one.send);
  }
  return { ok: true, target, sends };
}

/**
 * Which URLs a replay request goes to, each with the endpoint destination it reaches (null
 * for a staging host, localhost or a custom URL), or why it cannot go: `invalid` for a
 * request that is wrong or ambiguous in itself (400), `impossible` for one this event or
 * endpoint cannot do (422).
 *
 * - destination_id: that destination of the endpoint (original, or staging on its URL).
 * - original: the event's one destination (originalDestination); several is a 400 asking
 *   for destination_id, "matched" or "failed".
 * - staging: the staging hostname applied to the destination original (or destination_id)
 *   names; recorded without a destination (a staging host is not the destination).
 * - matched / failed: one send per destination the event matched / whose delivery failed
 *   and is unresolved, in the endpoint's order.
 * - local: http://localhost:PORT with the path of the event's one destination, or the
 *   captured path when it has several or none (never a question: it is the developer's machine).
 * - custom: the URL given.
 */
export function planReplay(request: ReplayRequestTarget, source: ReplayPlanSource, edits: ReplayPathEdits = {}): ReplayPlan {
  const target = requestedTarget(request);
  if (!target) return invalid("Say where to send the event: a target (original, staging, local, custom, matched, failed), a destination_id, or a destination_url.");
  const destinationId = request.destinationId ?? null;
  if (destinationId !== null && target !== "original" && target !== "staging") {
    return invalid(`destination_id goes with target "original" or "staging" (or no target), not "${target}".`);
  }
  if (request.customUrl && target !== "custom") return invalid(`A URL (destination_url) goes with target "custom" (or no target), not "${target}".`);
  switch (target) {
    case "custom": {
      const custom = editedReplayTarget("custom", { destinationUrl: null, stagingHost: null, path: source.path, query: source.query }, request.customUrl, edits);
      return custom.ok ? { ok: true, target, sends: [{ environment: "custom", destinationId: null, url: custom.url }] } : custom;
    }
    case "local": {
      const one = originalDestination(source);
      const local = editedReplayTarget("local", { destinationUrl: one.ok ? one.destination.url : null, stagingHost: null, path: source.path, query: source.query }, null, edits);
      return local.ok ? { ok: true, target, sends: [{ environment: "local", destinationId: null, url: local.url }] } : local;
    }
    case "original":
    case "staging": {
      let destination: PlanDestination;
      if (destinationId !== null) {
        const found = source.destinations.find((each) => each.id === destinationId);
        if (!found) return impossible(`The destination ${destinationId} is not one of this endpoint's destinations: list the endpoint's destinations for their ids.`);
        destination = found;
      } else {
        const one = originalDestination(source);
        if (!one.ok) return one;
        destination = one.destination;
      }
      const planned = sendsTo(target, [destination], source, edits, target);
      // A staging host is not the destination: its attempt does not resolve that destination's delivery.
      return planned.ok && target === "staging" ? { ...planned, sends: planned.sends.map((send) => ({ ...send, destinationId: null })) } : planned;
    }
    case "matched": {
      const matched = matchedDestinations(source);
      if (matched.length === 0) return impossible("This event matched no destination that still exists: replay to a destination_id or a URL.");
      return sendsTo("original", matched, source, edits, target);
    }
    case "failed": {
      const failed = matchedDestinations(source, isUnresolvedFailure);
      if (failed.length > 0) return sendsTo("original", failed, source, edits, target);
      if (source.deliveries.some(isUnresolvedFailure)) return impossible("This event's failed deliveries went to destinations removed since: mark them resolved, or replay to a destination_id or a URL.");
      if (source.deliveries.some((delivery) => delivery.status === "failed")) return impossible("Every failed delivery of this event is resolved already: replay to a destination_id to send it again.");
      return impossible("No delivery of this event failed: replay to a destination_id, to all matched destinations, or to a URL.");
    }
  }
}

/** Where a bulk replay sends each event: one of the endpoint's destinations, each event's matched or failed ones, or a URL. */
export type BulkReplayChoice =
  | { ok: true; environment: "original" | "custom"; target: "destination" | "matched" | "failed" | null; destinationId: string | null }
  | { ok: false; kind: "invalid" | "impossible"; reason: string };

/**
 * A bulk replay's target, decided once for the whole endpoint (each event is then planned with
 * planReplay): "original" is the endpoint's only destination, never the first of several.
 */
export function bulkReplayTarget(request: ReplayRequestTarget, destinations: PlanDestination[]): BulkReplayChoice {
  const target = requestedTarget(request);
  const destinationId = request.destinationId ?? null;
  if (destinationId !== null && target !== "original") return { ok: false, kind: "invalid", reason: `destination_id goes with target "original" (or no target), not "${target}".` };
  switch (target) {
    case "custom":
      return { ok: true, environment: "custom", target: null, destinationId: null };
    case "matched":
    case "failed":
      return { ok: true, environment: "original", target, destinationId: null };
    case "original": {
      if (destinationId !== null) {
        if (!destinations.some((destination) => destination.id === destinationId)) {
          return { ok: false, kind: "impossible", reason: `The destination ${destinationId} is not one of this endpoint's destinations: list the endpoint's destinations for their ids.` };
        }
        return { ok: true, environment: "original", target: "destination", destinationId };
      }
      if (destinations.length === 1) return { ok: true, environment: "original", target: "destination", destinationId: destinations[0]!.id };
      if (destinations.length === 0) return { ok: false, kind: "impossible", reason: "This endpoint has no destination to replay to: add one, or replay to a custom URL." };
      return {
        ok: false,
        kind: "invalid",
        reason: `This endpoint has ${destinations.length} destinations (${names(destinations)}): choose one, or send each event to the destinations it matched ("matched") or to its failed ones ("failed").`,
      };
    }
    default:
      return { ok: false, kind: "invalid", reason: "Bulk replays go to one of the endpoint's destinations, to each event's matched or failed destinations, or to a custom URL." };
  }
}
