import { EVENT_STATUSES, UserError, type EventStatus, type HeaderList } from "@rehook/core";
import {
  eventSummariesByIds,
  findOwnedEvent,
  listEventSummaries,
  listEventSummariesByOffset,
  type EventBus,
  type EventDetail,
  type EventSummary,
} from "@rehook/db";
import { z } from "zod";
import type { ServiceContext } from "./context.js";
import { parseInput } from "./validation.js";

export type { EventSummary };

const listEventsInput = z.object({
  endpointId: z.string().uuid("endpointId must be an endpoint id").optional(),
  status: z.enum(EVENT_STATUSES).optional(),
  before: z.string().uuid("before must be an event id").optional(),
  limit: z.number().int().min(1).max(100).default(50),
});

export interface EventPage {
  events: EventSummary[];
  /** Pass as `before` for the next (older) page; null on the last page. */
  nextCursor: string | null;
}

/** The user's events, newest first, a keyset page at a time. */
export async function listEvents(
  ctx: Pick<ServiceContext, "orm">,
  input: { userId: string; endpointId?: string; status?: EventStatus; before?: string; limit?: number },
): Promise<EventPage> {
  const { userId, ...rest } = input;
  const { limit, ...filter } = parseInput(listEventsInput, rest);
  // One row more than asked tells whether another page exists.
  const rows = await listEventSummaries(ctx.orm.em.fork(), userId, filter, limit + 1);
  const events = rows.slice(0, limit);
  return { events, nextCursor: rows.length > limit ? events[events.length - 1]!.id : null };
}

const offsetPageInput = z.object({
  endpointId: z.string().uuid("endpoint_id must be an endpoint id").optional(),
  status: z.enum(EVENT_STATUSES, { message: `status must be one of ${EVENT_STATUSES.join(", ")}` }).optional(),
  limit: z.number().int().min(1).max(100).default(20),
  offset: z.number().int().min(0).default(0),
});

/** The user's events, newest first, by offset with the matching total (the public API's listing). */
export async function listEventsByOffset(
  ctx: Pick<ServiceContext, "orm">,
  input: { userId: string; endpointId?: string; status?: string; limit?: number; offset?: number },
): Promise<{ events: EventSummary[]; total: number; limit: number; offset: number }> {
  const { userId, ...rest } = input;
  const { limit, offset, ...filter } = parseInput(offsetPageInput, rest);
  const { rows, total } = await listEventSummariesByOffset(ctx.orm.em.fork(), userId, filter, limit, offset);
  return { events: rows, total, limit, offset };
}

/** One event as the dashboard and the API show it: the stored detail, the answer grouped. */
export interface EventView extends Omit<EventDetail, "body" | "responseHeaders" | "responseBody" | "responseTruncated"> {
  body: Uint8Array;
  response: { status: number | null; headers: HeaderList | null; body: Uint8Array | null; truncated: boolean; latencyMs: number | null; error: string | null } | null;
}

/** One of the user's events; another user's id answers exactly like a missing one. */
export async function getEvent(ctx: Pick<ServiceContext, "orm">, input: { userId: string; eventId: string }): Promise<EventView> {
  const event = await findOwnedEvent(ctx.orm.em.fork(), input.userId, input.eventId);
  if (!event) throw new UserError("not_found", `no event with id ${input.eventId}`);
  const { responseHeaders, responseBody, responseTruncated, body, ...rest } = event;
  const attempted = event.status === "delivered" || event.status === "failed";
  return {
    ...rest,
    body: new Uint8Array(body),
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
  };
}

export interface LiveFilter {
  endpointId?: string;
  status?: EventStatus;
}

/**
 * The user's new events and status changes as they happen, from the LISTEN/NOTIFY bus (so
 * whichever instance captured or delivered them). Yields batches of feed rows: a new id is
 * a new row, a known id an update in place. Ends when `signal` aborts.
 */
export async function* liveEvents(
  ctx: Pick<ServiceContext, "orm" | "bus">,
  input: { userId: string; filter: LiveFilter; signal: AbortSignal },
): AsyncGenerator<EventSummary[]> {
  const bus: EventBus | undefined = ctx.bus;
  if (!bus) throw new UserError("unavailable", "live updates are not available on this server");
  let pending = new Set<string>();
  let wake: (() => void) | undefined;
  const unsubscribe = bus.subscribe((message) => {
    if (message.type !== "event.created" && message.type !== "event.status") return;
    if (input.filter.endpointId && message.endpointId !== input.filter.endpointId) return;
    pending.add(message.id);
    wake?.();
  });
  const aborted = new Promise<void>((resolve) => input.signal.addEventListener("abort", () => resolve(), { once: true }));
  try {
    while (!input.signal.aborted) {
      if (pending.size === 0) {
        await Promise.race([new Promise<void>((resolve) => (wake = resolve)), aborted]);
        wake = undefined;
        continue;
      }
      const ids = [...pending];
      pending = new Set();
      // Ownership is checked in the query: other users' events never leave it.
      const rows = await eventSummariesByIds(ctx.orm.em.fork(), input.userId, ids);
      const shown = input.filter.status ? rows.filter((row) => row.status === input.filter.status) : rows;
      if (shown.length > 0) yield shown;
    }
  } finally {
    unsubscribe();
  }
}
