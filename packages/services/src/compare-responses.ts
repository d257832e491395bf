import {
  attemptDestinationLabel,
  compareBodies,
  diffHeaders,
  forwardTarget,
  isUuid,
  notFoundMessage,
  replayDestination,
  UserError,
  type AttemptDestination,
  type BodyComparison,
  type HeaderChange,
} from "@rehook/core";
import {
  findDestination,
  findOwnedAttempt,
  findOwnedEvent,
  findOwnedReplayAttempt,
  listReplaySummaries,
  ownedEventAttempts,
  type DeliveryAttemptSummary,
  type EntityManager,
} from "@rehook/db";
import type { ServiceContext } from "./context.js";

/**
 * A response to compare: a delivery attempt by its destination and number (each destination
 * numbers its attempts from 1), by its number alone when its destination is unknown (or only
 * one destination has that number: links made before routing), or a replay by its id.
 */
export type ResponseRef = `delivery:${string}:${number}` | `delivery:${number}` | `replay:${string}`;

/** Replays of one event a picker lists (the newest; the Replays page has them all). */
export const MAX_COMPARED_REPLAYS = 100;

/** The most of a stored answer that is compared: all of it (stored answers are cut at 256 KiB). */
const COMPARED_BODY_BYTES = 256 * 1024;

/** One response of an event as a picker lists it. */
export interface ResponseOption {
  ref: ResponseRef;
  kind: "delivery" | "replay";
  /** "Original delivery", "Retry (attempt 2)" or "Replay (staging)". */
  label: string;
  /** Where it went: the endpoint destination (its name), or staging, a custom URL, local. */
  destination: AttemptDestination;
  /** attemptDestinationLabel of destination: "Billing", "custom URL", "local via listen"… */
  destinationLabel: string;
  at: Date;
  status: number | null;
  outcome: string;
  /** The URL the request went to (a delivery's with the captured sub-path and query, as forwarding sent it). */
  destinationUrl: string | null;
  /** A replay sent with edits (method, headers, body, path or query); false for deliveries. */
  edited: boolean;
}

/** One side of a comparison: what was sent where, and what came back. */
export interface ComparedResponse extends ResponseOption {
  latencyMs: number | null;
  error: string | null;
  bodyBytes: number;
  /** Only the beginning of the answer was stored. */
  bodyTruncated: boolean;
  /** Headers were not recorded (a local replay keeps only status and body). */
  headersRecorded: boolean;
}

export interface ResponseComparison {
  left: ComparedResponse;
  right: ComparedResponse;
  statusChanged: boolean;
  headers: HeaderChange[];
  body: BodyComparison;
}

const noSuchEvent = (eventId: string) => new UserError("not_found", notFoundMessage("event", eventId));

type ParsedRef = { kind: "delivery"; destinationId: string | null; attempt: number } | { kind: "replay"; id: string };

function parseRef(ref: string): ParsedRef {
  const delivery = /^delivery:(?:([0-9a-f-]{36}):)?([1-9][0-9]{0,9})$/i.exec(ref);
  if (delivery && Number(delivery[2]) <= 2_147_483_647 && (delivery[1] === undefined || isUuid(delivery[1]))) {
    return { kind: "delivery", destinationId: delivery[1]?.toLowerCase() ?? null, attempt: Number(delivery[2]) };
  }
  const replay = /^replay:([0-9a-f-]{36})$/i.exec(ref);
  if (replay) return { kind: "replay", id: replay[1]!.toLowerCase() };
  throw new UserError(
    "validation_failed",
    `The response ${JSON.stringify(ref.slice(0, 80))} is not one to compare. Use delivery:<destination id>:<attempt number>, delivery:<attempt number> or replay:<replay id>.`,
  );
}

/** An attempt's reference: by destination and number, or by number alone when its destination is unknown. */
const deliveryRef = (attempt: Pick<DeliveryAttemptSummary, "destinationId" | "attempt">): ResponseRef =>
  attempt.destinationId === null ? `delivery:${attempt.attempt}` : `delivery:${attempt.destinationId}:${attempt.attempt}`;

const deliveryLabel = (attempt: number) => (attempt === 1 ? "Original delivery" : `Retry (attempt ${attempt})`);

/** Where an attempt went: its destination as the attempts query resolved it. */
const attemptDestination = (attempt: DeliveryAttemptSummary): AttemptDestination => ({
  kind: "destination",
  destinationId: attempt.destinationId,
  name: attempt.destinationName,
  url: attempt.destinationUrl,
});

const replayLabel = (environment: string) => `Replay (${environment})`;

type DeliveredEvent = { path: string; query: string };

/** Where an attempt's request went: its destination with the captured sub-path and query, as forwarding appends them. */
function deliveryUrl(destinationUrl: string | null, event: DeliveredEvent): string | null {
  if (!destinationUrl) return null;
  const target = forwardTarget(destinationUrl, event.path, event.query);
  // A refused sub-path was never sent anywhere: the destination alone says where it would have gone.
  return target.ok ? target.url : destinationUrl;
}

/** A delivery attempt as the pickers list it, and the head of its side of a comparison. */
function deliveryOption(attempt: DeliveryAttemptSummary, event: DeliveredEvent): ResponseOption {
  const destination = attemptDestination(attempt);
  return {
    ref: deliveryRef(attempt),
    kind: "delivery",
    label: deliveryLabel(attempt.attempt),
    destination,
    destinationLabel: attemptDestinationLabel(destination),
    at: attempt.startedAt,
    status: attempt.responseStatus,
    outcome: attempt.outcome,
    destinationUrl: deliveryUrl(attempt.destinationUrl, event),
    edited: false,
  };
}

/**
 * The responses of one of the user's events that can be compared: every delivery attempt to
 * every destination (originals and retries) oldest first, then its replays oldest first, each
 * labelled with where it went.
 */
export async function listEventResponses(ctx: Pick<ServiceContext, "orm">, input: { teamId: string; eventId: string }): Promise<ResponseOption[]> {
  const em = ctx.orm.em.fork();
  const event = await findOwnedEvent(em, input.teamId, input.eventId, 0);
  if (!event) throw noSuchEvent(input.eventId);
  const [attempts, replays] = await Promise.all([
    ownedEventAttempts(em, input.teamId, event.id),
    listReplaySummaries(em, input.teamId, { eventId: event.id }, MAX_COMPARED_REPLAYS),
  ]);
  return [...attempts.map((attempt) => deliveryOption(attempt, event)), ...replays.reverse().map(replayOption)];
}

/** A replay as the pickers list it, and the head of its side of a comparison. */
function replayOption(replay: {
  id: string;
  environment: string;
  replayedAt: Date;
  responseStatus: number | null;
  status: string;
  destinationUrl: string;
  modified: boolean;
  destinationId: string | null;
  destinationName: string | null;
  localVia: "browser" | "listen" | null;
}): ResponseOption {
  const destination = replayDestination(replay);
  return {
    ref: `replay:${replay.id}`,
    kind: "replay",
    label: replayLabel(replay.environment),
    destination,
    destinationLabel: attemptDestinationLabel(destination),
    at: replay.replayedAt,
    status: replay.responseStatus,
    outcome: replay.status,
    destinationUrl: replay.destinationUrl,
    edited: replay.modified,
  };
}

async function loadResponse(
  em: EntityManager,
  teamId: string,
  event: { id: string; endpointId: string } & DeliveredEvent,
  ref: string,
): Promise<ComparedResponse & { headers: Parameters<typeof diffHeaders>[0]; body: Uint8Array | null }> {
  const parsed = parseRef(ref);
  if (parsed.kind === "delivery") {
    const destinationId = parsed.destinationId ?? (await soleDestinationOf(em, teamId, event.id, parsed.attempt));
    const found = await findOwnedAttempt(em, teamId, event.id, parsed.attempt, COMPARED_BODY_BYTES, destinationId ?? undefined);
    if (!found) throw new UserError("not_found", `Event ${event.id} has no attempt ${parsed.attempt}${parsed.destinationId ? " to that destination" : ""}. Open the event to see its attempts.`);
    return {
      ...deliveryOption(found, event),
      latencyMs: found.latencyMs,
      error: found.error,
      bodyBytes: found.responseBody?.byteLength ?? 0,
      bodyTruncated: found.bodyTruncated,
      headersRecorded: true,
      headers: found.responseHeaders,
      body: found.responseBody && new Uint8Array(found.responseBody),
    };
  }
  const replay = await findOwnedReplayAttempt(em, teamId, parsed.id);
  // Another event's replay answers like a missing one: the pair must be one event's.
  if (!replay || replay.event.id !== event.id) {
    throw new UserError("not_found", `Event ${event.id} has no replay with the id ${parsed.id}. Open the event to see its replays.`);
  }
  // The destination is the event's endpoint's (the event was found in the team): its name now, or none when removed.
  const destinationName = replay.destinationId === null ? null : ((await findDestination(em, event.endpointId, replay.destinationId))?.name ?? null);
  return {
    ...replayOption({ ...replay, destinationName }),
    latencyMs: replay.latencyMs,
    error: replay.error,
    bodyBytes: replay.responseBody?.byteLength ?? 0,
    bodyTruncated: replay.responseTruncated,
    headersRecorded: replay.environment !== "local",
    headers: replay.responseHeaders,
    body: replay.responseBody && new Uint8Array(replay.responseBody),
  };
}

/**
 * The destination of a reference by number alone (delivery:<n>): the one whose attempt n's
 * destination is unknown, or the only destination with an attempt n. Several: the reference is
 * ambiguous, and the answer says how to name one.
 */
async function soleDestinationOf(em: EntityManager, teamId: string, eventId: string, attempt: number): Promise<string | null> {
  const numbered = (await ownedEventAttempts(em, teamId, eventId)).filter((candidate) => candidate.attempt === attempt);
  if (numbered.some((candidate) => candidate.destinationId === null)) return null;
  const destinations = [...new Set(numbered.map((candidate) => candidate.destinationId!))];
  if (destinations.length > 1) {
    throw new UserError(
      "validation_failed",
      `Event ${eventId} has an attempt ${attempt} to ${destinations.length} destinations: name one as delivery:<destination id>:${attempt} (${destinations.map((id) => `delivery:${id}:${attempt}`).join(", ")}).`,
    );
  }
  return destinations[0] ?? null;
}

/**
 * Two responses of one of the user's event side by side: status, latency, the header diff
 * and the body's line diff (JSON normalised first; bounded by the core diff's caps).
 * `left`/`right` are "delivery:<attempt number>" or "replay:<replay id>".
 */
export async function compareResponses(
  ctx: Pick<ServiceContext, "orm">,
  input: { teamId: string; eventId: string; left: string; right: string },
): Promise<ResponseComparison> {
  const em = ctx.orm.em.fork();
  const event = await findOwnedEvent(em, input.teamId, input.eventId, 0);
  if (!event) throw noSuchEvent(input.eventId);
  const { headers: leftHeaders, body: leftBody, ...left } = await loadResponse(em, input.teamId, event, input.left);
  const { headers: rightHeaders, body: rightBody, ...right } = await loadResponse(em, input.teamId, event, input.right);
  return {
    left,
    right,
    statusChanged: left.status !== right.status,
    // A side without recorded headers (a local replay) would show every header as added or removed.
    headers: left.headersRecorded && right.headersRecorded ? diffHeaders(leftHeaders, rightHeaders) : [],
    body: compareBodies(leftBody, rightBody),
  };
}
