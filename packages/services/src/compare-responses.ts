import { compareBodies, diffHeaders, forwardTarget, notFoundMessage, UserError, type BodyComparison, type HeaderChange } from "@rehook/core";
import { findOwnedAttempt, findOwnedEvent, findOwnedReplayAttempt, listReplaySummaries, ownedEventAttempts, type EntityManager } from "@rehook/db";
import type { ServiceContext } from "./context.js";

/** A response to compare: a delivery attempt by its number, or a replay by its id. */
export type ResponseRef = `delivery:${number}` | `replay:${string}`;

/** Replays of one event a picker lists (the newest; the Replays page has them all). */
export const MAX_COMPARED_REPLAYS = 100;

/** The most of a stored answer that is compared: all of it (stored answers are cut at 256 KiB). */
const COMPARED_BODY_BYTES = 256 * 1024;

/** One response of an event as a picker lists it. */
export interface ResponseOption {
  ref: ResponseRef;
  kind: "delivery" | "replay";
  /** "Delivery attempt 2" or "Replay (staging)". */
  label: string;
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

function parseRef(ref: string): { kind: "delivery"; attempt: number } | { kind: "replay"; id: string } {
  const delivery = /^delivery:([1-9][0-9]{0,9})$/.exec(ref);
  if (delivery && Number(delivery[1]) <= 2_147_483_647) return { kind: "delivery", attempt: Number(delivery[1]) };
  const replay = /^replay:([0-9a-f-]{36})$/i.exec(ref);
  if (replay) return { kind: "replay", id: replay[1]!.toLowerCase() };
  throw new UserError("validation_failed", `The response ${JSON.stringify(ref.slice(0, 80))} is not one to compare. Use delivery:<attempt number> or replay:<replay id>.`);
}

const replayLabel = (environment: string) => `Replay (${environment})`;

type DeliveredEvent = { destinationUrl: string | null; path: string; query: string };

/** Where the event's deliveries went: its destination with the captured sub-path and query, as forwarding appends them. */
function deliveryUrl(event: DeliveredEvent): string | null {
  if (!event.destinationUrl) return null;
  const target = forwardTarget(event.destinationUrl, event.path, event.query);
  // A refused sub-path was never sent anywhere: the destination alone says where it would have gone.
  return target.ok ? target.url : event.destinationUrl;
}

/**
 * The responses of one of the user's events that can be compared: each delivery attempt
 * (the original and its retries) oldest first, then its replays oldest first.
 */
export async function listEventResponses(ctx: Pick<ServiceContext, "orm">, input: { teamId: string; eventId: string }): Promise<ResponseOption[]> {
  const em = ctx.orm.em.fork();
  const event = await findOwnedEvent(em, input.teamId, input.eventId, 0);
  if (!event) throw noSuchEvent(input.eventId);
  const [attempts, replays] = await Promise.all([
    ownedEventAttempts(em, input.teamId, event.id),
    listReplaySummaries(em, input.teamId, { eventId: event.id }, MAX_COMPARED_REPLAYS),
  ]);
  return [
    ...attempts.map<ResponseOption>((attempt) => ({
      ref: `delivery:${attempt.attempt}`,
      kind: "delivery",
      label: attempt.attempt === 1 ? "Original delivery" : `Retry (attempt ${attempt.attempt})`,
      at: attempt.startedAt,
      status: attempt.responseStatus,
      outcome: attempt.outcome,
      destinationUrl: deliveryUrl(event),
      edited: false,
    })),
    ...replays.reverse().map(replayOption),
  ];
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
}): ResponseOption {
  return {
    ref: `replay:${replay.id}`,
    kind: "replay",
    label: replayLabel(replay.environment),
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
  event: { id: string } & DeliveredEvent,
  ref: string,
): Promise<ComparedResponse & { headers: Parameters<typeof diffHeaders>[0]; body: Uint8Array | null }> {
  const parsed = parseRef(ref);
  if (parsed.kind === "delivery") {
    const found = await findOwnedAttempt(em, teamId, event.id, parsed.attempt, COMPARED_BODY_BYTES);
    if (!found) throw new UserError("not_found", `Event ${event.id} has no attempt ${parsed.attempt}. Open the event to see its attempts.`);
    return {
      ref: `delivery:${found.attempt}`,
      kind: "delivery",
      label: found.attempt === 1 ? "Original delivery" : `Retry (attempt ${found.attempt})`,
      at: found.startedAt,
      status: found.responseStatus,
      outcome: found.outcome,
      destinationUrl: deliveryUrl(event),
      edited: false,
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
  return {
    ...replayOption(replay),
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
