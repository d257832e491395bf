import {
  DEFAULT_SEARCH_WINDOW_MS,
  notFoundMessage,
  rawBodyFileName,
  UserError,
  withoutPartialUtf8,
  type EventStatus,
  type HeaderList,
  type SignatureStatus,
} from "@rehook/core";
import {
  eventSummariesByIds,
  findOwnedAttempt,
  findOwnedEvent,
  findOwnedEventBody,
  countMatchingEventsCapped,
  countOwnedEvents,
  deleteOwnedEvent,
  eventIdsMatchingSearch,
  listEventSummaries,
  listEventSummariesAt,
  MAX_EVENT_OFFSET,
  ownedEventAttempts,
  ownedEventDeliveries,
  ownedEventBodySlice,
  type DeliveryAttemptSummary,
  type EntityManager,
  type EventBus,
  type EventDetail,
  type EventFilter,
  type EventSummary,
} from "@rehook/db";
import type { ServiceContext } from "./context.js";
import { MAX_WAITING_EVENT_IDS } from "./event-stream.js";
import { takeStreamSlot } from "./stream-slots.js";
import { untilAccessLost } from "./access-watch.js";
import { parseInput } from "./validation.js";
import { recordAudit, type AuditedBy } from "./audit.js";
import { eventFilterInput, listEventsInput, type EventFilterInput, type EventPage, type EventView, type ListEventsInput } from "./schemas/events.js";

export type { EventSummary };
export { MAX_EVENT_OFFSET };

export type { ListEventsInput, EventPage, EventView };

/** The list's input checked, as a filter and its paging (the export reads the same filter). */
export function parseEventListInput(input: ListEventsInput): { filter: EventFilter; limit: number; offset: number; withTotal: boolean } {
  const { limit, offset, withTotal, ...parsed } = parseInput(listEventsInput, input);
  // A search without a start looks at the last day: bodies are scanned, so the window bounds the work.
  const filter = parsed.search && !parsed.receivedAfter ? { ...parsed, receivedAfter: new Date(Date.now() - DEFAULT_SEARCH_WINDOW_MS) } : parsed;
  return { filter, limit, offset, withTotal };
}

/**
 * The user's events, newest first, filtered, a page at a time: by keyset (`before`, the
 * dashboard and the API's cursor) or by a bounded offset. The total, when asked for, comes
 * from the per-status counts (exact, a few rows) unless a filter they cannot answer is set.
 */
export async function listEvents(ctx: Pick<ServiceContext, "orm">, input: { teamId: string } & ListEventsInput): Promise<EventPage> {
  const { teamId, ...rest } = input;
  const { limit, offset, filter, withTotal } = parseEventListInput(rest);
  const em = ctx.orm.em.fork();
  // One row more than asked tells whether another page exists.
  const rows = offset > 0 ? await listEventSummariesAt(em, teamId, filter, limit + 1, offset) : await listEventSummaries(em, teamId, filter, limit + 1);
  const events = rows.slice(0, limit);
  const page: EventPage = { events, nextCursor: rows.length > limit ? events[events.length - 1]!.id : null };
  if (withTotal) {
    // A search reads bodies: counting past the page would read its whole window a second time.
    page.total = filter.search ? { value: offset + events.length, capped: page.nextCursor !== null } : await countMatching(em, teamId, filter);
  }
  return page;
}

async function countMatching(em: EntityManager, teamId: string, filter: EventFilter): Promise<{ value: number; capped: boolean }> {
  // A search is never counted (listEvents counts its page): it would read the window again.
  const { before: _cursor, search: _search, endpointId, status, ...others } = filter;
  if (Object.values(others).every((value) => value === undefined)) return { value: await countOwnedEvents(em, teamId, { endpointId, status }), capped: false };
  const { total, capped } = await countMatchingEventsCapped(em, teamId, { endpointId, status, ...others });
  return { value: total, capped };
}

/** The most of a body that an event's page and `GET /api/v1/events/{id}` carry; the rest is downloaded raw. */
export const PAYLOAD_PREVIEW_BYTES = 256 * 1024;

/**
 * One of the user's events, its body only up to PAYLOAD_PREVIEW_BYTES (a 10 MiB body is
 * downloaded with openEventBody instead); another user's id answers exactly like a missing one.
 */
export async function getEvent(ctx: Pick<ServiceContext, "orm">, input: { teamId: string; eventId: string }): Promise<EventView> {
  const em = ctx.orm.em.fork();
  const [event, attempts, deliveries] = await Promise.all([
    findOwnedEvent(em, input.teamId, input.eventId, PAYLOAD_PREVIEW_BYTES),
    ownedEventAttempts(em, input.teamId, input.eventId),
    ownedEventDeliveries(em, input.teamId, input.eventId),
  ]);
  if (!event) throw new UserError("not_found", notFoundMessage("event", input.eventId));
  const { responseHeaders, responseBody, responseTruncated, body, ...rest } = event;
  const attempted = event.status === "delivered" || event.status === "failed";
  return {
    ...rest,
    body: new Uint8Array(event.bodyTruncated ? withoutPartialUtf8(body) : body),
    response: attempted
      ? {
          status: event.responseStatus,
          headers: responseHeaders,
          body: responseBody ? new Uint8Array(responseBody) : null,
          truncated: responseTruncated,
          latencyMs: event.latencyMs,
          error: event.error,
        }
      : null,
    attempts,
    deliveries,
  };
}

/**
 * Deletes one of the user's events with its delivery and replay attempts, and takes it out
 * of the counts; another user's id answers exactly like a missing one.
 */
export async function deleteEvent(ctx: Pick<ServiceContext, "orm">, input: { teamId: string; by?: AuditedBy; eventId: string }): Promise<void> {
  await ctx.orm.em.fork().transactional(async (em) => {
    if (!(await deleteOwnedEvent(em, input.teamId, input.eventId))) throw new UserError("not_found", notFoundMessage("event", input.eventId));
    await recordAudit(em, input.by, { teamId: input.teamId, action: "event.delete", target: { type: "event", id: input.eventId, name: null } });
  });
}

/** The most of one attempt's answer body that its view carries (the stored answer is at most 256 KiB). */
export const ATTEMPT_BODY_PREVIEW_BYTES = 64 * 1024;

/** One attempt of one of the user's events with the destination's headers and the start of its body (the attempt timeline). */
export async function getEventAttempt(ctx: Pick<ServiceContext, "orm">, input: { teamId: string; eventId: string; attempt: number; destinationId?: string }) {
  const found = await findOwnedAttempt(ctx.orm.em.fork(), input.teamId, input.eventId, input.attempt, ATTEMPT_BODY_PREVIEW_BYTES, input.destinationId);
  if (!found) throw new UserError("not_found", `Event ${input.eventId} has no attempt ${input.attempt}. Open the event to see its attempts.`);
  const { responseBody, ...attempt } = found;
  return { ...attempt, responseBody: responseBody && new Uint8Array(attempt.bodyTruncated ? withoutPartialUtf8(responseBody) : responseBody) };
}

/** Bytes a body download reads from the database at a time. */
export const BODY_DOWNLOAD_CHUNK_BYTES = 1024 * 1024;

export interface EventBodyDownload {
  sizeBytes: number;
  /** The request's Content-Type as stored, if it had one. */
  contentType: string | null;
  /** The request's Content-Encoding: the stored bytes are still compressed with it. */
  contentEncoding: string | null;
  /** The name to save it under: event-<id>.<ext> from its Content-Type, the compression's suffix after (rawBodyFileName). */
  fileName: string;
  /** The body in order, read a chunk at a time as the consumer asks (fails with not_found if the event is deleted meanwhile). */
  chunks: AsyncGenerator<Buffer>;
}

/** One of the user's event bodies, whole and byte for byte, read a chunk at a time. */
export async function openEventBody(ctx: Pick<ServiceContext, "orm">, input: { teamId: string; eventId: string }): Promise<EventBodyDownload> {
  const found = await findOwnedEventBody(ctx.orm.em.fork(), input.teamId, input.eventId);
  if (!found) throw new UserError("not_found", notFoundMessage("event", input.eventId));
  const size = found.sizeBytes;
  async function* chunks(): AsyncGenerator<Buffer> {
    for (let offset = 0; offset < size; offset += BODY_DOWNLOAD_CHUNK_BYTES) {
      const slice = await ownedEventBodySlice(ctx.orm.em.fork(), input.teamId, input.eventId, offset, BODY_DOWNLOAD_CHUNK_BYTES);
      if (!slice) throw new UserError("not_found", `The event ${input.eventId} was deleted during the download. Its body is no longer stored.`);
      yield slice;
    }
  }
  return { ...found, fileName: rawBodyFileName(input.eventId, found.contentType, found.contentEncoding), chunks: chunks() };
}

/** What a live feed shows: the list's filter (a search is checked in the database for the few ids at hand). */
export type LiveFilter = EventFilterInput;

/** Feed rows one live read asks for (and one message to the browser carries) at most. */
export const LIVE_BATCH_IDS = 200;

/** Reads feed rows by id for one user (the database query; tests wrap it to count calls). */
export type LiveRowLoader = (em: EntityManager, teamId: string, ids: string[]) => Promise<EventSummary[]>;

/**
 * The user's new events and status changes as they happen, from the LISTEN/NOTIFY bus (so
 * whichever instance captured or delivered them). Takes one of the user's stream slots
 * first (a refusal comes before any stream), then yields batches of feed rows: a new id is
 * a new row, a known id an update in place. Bus messages name the owner, so other users'
 * events are dropped in memory, never queried; rows are read only when the consumer asks for
 * the next batch. Ends when `signal` aborts, or when the consumer falls so far behind that
 * more than MAX_WAITING_EVENT_IDS wait (it reconnects and catches up from the list).
 */
export async function openLiveEvents(
  ctx: Pick<ServiceContext, "orm" | "bus">,
  input: { teamId: string; userId: string; keyId?: string; filter: LiveFilter; signal: AbortSignal },
  loadRows: LiveRowLoader = eventSummariesByIds,
): Promise<AsyncGenerator<EventSummary[]>> {
  const bus = ctx.bus;
  // Checked before a slot is taken: a search the database refuses would otherwise fail the stream at its first event.
  const filter: LiveFilter = parseInput(eventFilterInput, input.filter);
  const release = takeStreamSlot(bus, input.userId, input.signal);
  // A member removed (or a key revoked) on any instance ends the stream at once. Watched only
  // once the slot is held: a refused stream leaves no subscription behind.
  const signal = untilAccessLost(ctx, input, input.signal);
  return liveRows({ orm: ctx.orm, bus }, { ...input, filter, signal }, loadRows, release);
}

/** The rows a live feed with this filter shows. */
async function liveMatches(ctx: Pick<ServiceContext, "orm">, rows: EventSummary[], filter: LiveFilter): Promise<EventSummary[]> {
  const kept = rows.filter(
    (row) =>
      (!filter.status || row.status === filter.status) &&
      (!filter.source || row.source === filter.source) &&
      (!filter.eventType || row.eventType === filter.eventType) &&
      (!filter.signature || row.signature === filter.signature) &&
      (!filter.unresolved || !row.resolved),
  );
  if (!filter.search || kept.length === 0) return kept;
  const found = await eventIdsMatchingSearch(ctx.orm.em.fork(), kept.map((row) => row.id), filter.search);
  return kept.filter((row) => found.has(row.id));
}

async function* liveRows(
  ctx: Pick<ServiceContext, "orm"> & { bus: EventBus },
  input: { teamId: string; filter: LiveFilter; signal: AbortSignal },
  loadRows: LiveRowLoader,
  release: () => void,
): AsyncGenerator<EventSummary[]> {
  const waiting = new Set<string>();
  let wake: (() => void) | undefined;
  const unsubscribe = ctx.bus.subscribe((message) => {
    if (message.type !== "event.created" && message.type !== "event.status") return;
    // Messages from an instance that predates `teamId` lack it: the query below still checks ownership.
    if (message.teamId && message.teamId !== input.teamId) return;
    if (input.filter.endpointId && message.endpointId !== input.filter.endpointId) return;
    waiting.add(message.id);
    wake?.();
  });
  const aborted = new Promise<void>((resolve) => input.signal.addEventListener("abort", () => resolve(), { once: true }));
  try {
    while (!input.signal.aborted) {
      if (waiting.size > MAX_WAITING_EVENT_IDS) return;
      if (waiting.size === 0) {
        await Promise.race([new Promise<void>((resolve) => (wake = resolve)), aborted]);
        wake = undefined;
        continue;
      }
      const ids: string[] = [];
      for (const id of waiting) {
        if (ids.length === LIVE_BATCH_IDS) break;
        ids.push(id);
      }
      for (const id of ids) waiting.delete(id);
      // Ownership is checked in the query too: other users' events never leave it.
      const rows = await loadRows(ctx.orm.em.fork(), input.teamId, ids);
      const shown = await liveMatches(ctx, rows, input.filter);
      if (shown.length > 0) yield shown;
    }
  } finally {
    unsubscribe();
    release();
  }
}
