import type { ExportedEvent } from "@rehook/core";
import { exportedEventsByIds, listEventSummaries } from "@rehook/db";
import type { ServiceContext } from "./context.js";
import { parseEventListInput, type ListEventsInput } from "./events.js";

/** Events listed per read of an export (ids only; their bodies are then read by bytes). */
export const EXPORT_PAGE_EVENTS = 500;

export type ExportFilter = Omit<ListEventsInput, "before" | "offset" | "limit">;

/**
 * Every one of the user's events the list's filter finds, newest first, whole (bodies and
 * the destination's answer), for an export of any size: pages of EXPORT_PAGE_EVENTS ids by
 * the list's own keyset cursor, their bodies read about BODY_BYTES_PER_READ at a time. The
 * next read starts only when the consumer asks for the next event, so a consumer that waits
 * for its client holds one read in memory at most. Invalid filters throw before any read.
 */
export function openEventExport(ctx: Pick<ServiceContext, "orm">, input: { teamId: string; filter: ExportFilter; pageEvents?: number }): AsyncGenerator<ExportedEvent> {
  const { filter } = parseEventListInput(input.filter);
  return exportedEvents(ctx, input.teamId, filter, input.pageEvents ?? EXPORT_PAGE_EVENTS);
}

async function* exportedEvents(ctx: Pick<ServiceContext, "orm">, teamId: string, filter: ReturnType<typeof parseEventListInput>["filter"], pageEvents: number) {
  let before: string | undefined;
  for (;;) {
    const page = await listEventSummaries(ctx.orm.em.fork(), teamId, { ...filter, before }, pageEvents);
    let ids = page.map((row) => row.id);
    while (ids.length > 0) {
      const events = await exportedEventsByIds(ctx.orm.em.fork(), teamId, ids);
      // None left: the rest of the page was deleted meanwhile.
      if (events.length === 0) break;
      const last = events[events.length - 1]!.id;
      ids = ids.filter((id) => id < last);
      yield* events;
    }
    if (page.length < pageEvents) return;
    before = page[page.length - 1]!.id;
  }
}
