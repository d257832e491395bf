import { notFoundMessage, UserError } from "@rehook/core";
import { eventStoredOrder, findOwnedEndpoint, fullEventsAfter, fullEventsByIds, fullEventsStoredAfter, type EventBus, type FullEvent } from "@rehook/db";
import type { ServiceContext } from "./context.js";
import { takeStreamSlot } from "./stream-slots.js";
import { untilAccessLost } from "./access-watch.js";
import { openLocalReplayInbox, type LocalReplayInbox } from "./local-listener-inbox.js";

export type { FullEvent };

/** What a stream sends: a captured event, or (to a listener that takes them) a Local replay of a stored one. */
export type StreamedItem = FullEvent & { localReplay?: { attemptId: string } };

/** Rows per backlog read; each read is also cut at BODY_BYTES_PER_READ of bodies. */
const PAGE = 100;
/**
 * New ids a stream may have waiting while its client does not keep up. Past this the stream
 * ends: the client resumes from the last id it saw and catches up from the database, a page
 * at a time, instead of this instance remembering an endless list for it.
 */
export const MAX_WAITING_EVENT_IDS = 10_000;

/**
 * An endpoint's events as they are captured, for `rehook listen`. Checks the endpoint and
 * takes one of the user's stream slots before anything is sent (so a refusal can still be an
 * HTTP error), then returns the stream: with `after` (the last id the client saw) it first
 * sends what committed after that event, in commit order (events.stored_order, which follows
 * commit order: see the event_stored_order migration), so never `after` itself nor anything the
 * stream sent before it, and it skips nothing that committed late; an `after` that is gone or older than
 * that order falls back to the events with later ids. Then new events live from the
 * LISTEN/NOTIFY bus, also in commit order (NOTIFY is delivered so). Bodies are read a bounded
 * number of bytes at a time, and only when the consumer asks for the next event, so a
 * consumer that waits for its socket to drain holds the reading back. Ends when `signal` aborts.
 *
 * With `localReplays` (a `rehook listen` that forwards them, of a member allowed to record
 * them) the stream is also the member's listener for the endpoint: it is registered before
 * this returns, and the Local replays the member hands to it come as items with
 * `localReplay` (the stored event, read in the stream's own team and endpoint).
 */
export async function openEndpointEventStream(
  ctx: Pick<ServiceContext, "orm" | "bus" | "logger">,
  input: { teamId: string; userId: string; keyId?: string; endpointId: string; after?: string | null; localReplays?: boolean; signal: AbortSignal },
): Promise<AsyncGenerator<StreamedItem>> {
  const endpoint = await findOwnedEndpoint(ctx.orm.em.fork(), input.teamId, { id: input.endpointId });
  if (!endpoint) throw new UserError("not_found", notFoundMessage("endpoint", input.endpointId));
  const release = takeStreamSlot(ctx.bus, input.userId, input.signal);
  // A member removed (or a key revoked) on any instance ends the stream at once. Watched only
  // once the slot is held: a refused stream leaves no subscription behind.
  const signal = untilAccessLost(ctx, input, input.signal);
  let inbox: LocalReplayInbox | null = null;
  try {
    if (input.localReplays) inbox = await openLocalReplayInbox(ctx, input, signal);
  } catch (error) {
    release();
    throw error;
  }
  return endpointEvents({ orm: ctx.orm, bus: ctx.bus }, { ...input, signal }, release, inbox);
}

async function* endpointEvents(
  ctx: Pick<ServiceContext, "orm" | "bus">,
  input: { teamId: string; endpointId: string; after?: string | null; signal: AbortSignal },
  release: () => void,
  inbox: LocalReplayInbox | null,
): AsyncGenerator<StreamedItem> {
  // Listen first, so nothing committed while the backlog is read falls between the two.
  const waiting: string[] = [];
  let wake: (() => void) | undefined;
  const unsubscribe = ctx.bus.subscribe((message) => {
    if (message.type !== "event.created" || message.endpointId !== input.endpointId) return;
    waiting.push(message.id);
    wake?.();
  });
  if (inbox) inbox.onArrival = () => wake?.();
  const aborted = new Promise<void>((resolve) => input.signal.addEventListener("abort", () => resolve(), { once: true }));
  const sent = new Set<string>();
  // A Local replay goes out as soon as the stream is between two events.
  async function* localReplays(): AsyncGenerator<StreamedItem> {
    for (const request of inbox?.take() ?? []) {
      const [event] = await fullEventsByIds(ctx.orm.em.fork(), input.teamId, input.endpointId, [request.eventId]);
      if (event) yield { ...event, localReplay: { attemptId: request.attemptId } };
    }
  }
  try {
    if (input.after) {
      const storedAfter = await eventStoredOrder(ctx.orm.em.fork(), input.teamId, input.endpointId, input.after);
      const backlog =
        storedAfter === null
          ? { from: input.after, read: (id: string) => fullEventsAfter(ctx.orm.em.fork(), input.teamId, input.endpointId, id, PAGE), next: (event: FullEvent) => event.id }
          : {
              from: storedAfter,
              read: (order: string) => fullEventsStoredAfter(ctx.orm.em.fork(), input.teamId, input.endpointId, order, PAGE),
              next: (event: FullEvent) => event.storedOrder!,
            };
      let cursor = backlog.from;
      while (!input.signal.aborted) {
        const page = await backlog.read(cursor);
        if (page.length === 0) break;
        for (const event of page) {
          sent.add(event.id);
          yield event;
        }
        cursor = backlog.next(page[page.length - 1]!);
      }
    }
    while (!input.signal.aborted) {
      yield* localReplays();
      if (waiting.length > MAX_WAITING_EVENT_IDS) return;
      if (waiting.length === 0) {
        if (inbox && inbox.waiting() > 0) continue;
        await Promise.race([new Promise<void>((resolve) => (wake = resolve)), aborted]);
        wake = undefined;
        continue;
      }
      let ids = [...new Set(waiting.splice(0))].filter((id) => !sent.has(id));
      while (ids.length > 0 && !input.signal.aborted) {
        // In commit order: a client that drops midway resumes after the last one it got and misses none.
        const page = await fullEventsByIds(ctx.orm.em.fork(), input.teamId, input.endpointId, ids);
        if (page.length === 0) break; // none of them exists any more
        const read = new Set(page.map((event) => event.id));
        ids = ids.filter((id) => !read.has(id));
        for (const event of page) {
          sent.add(event.id);
          yield event;
        }
      }
      // Only what the backlog sent needs remembering (its notifications may still be waiting); live ids are not repeated by the bus.
      if (sent.size > 10_000) sent.clear();
    }
  } finally {
    unsubscribe();
    release();
  }
}
