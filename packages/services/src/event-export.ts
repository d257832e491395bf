import type { ExportedEvent } from "@rehook/core";
import { exportedEventsByIds, findOwnedEndpoint, listEventSummaries } from "@rehook/db";
import type { ServiceContext } from "./context.js";
import { parseEventListInput, type ListEventsInput } from "./events.js";
import { recordAudit, type AuditedBy } from "./audit.js";

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
export function openEventExport(ctx: Pick<ServiceContext, "orm">, input: { teamId: string; by?: AuditedBy; filter: ExportFilter; pageEvents?: number }): AsyncGenerator<ExportedEvent> {
  const { filter } = parseEventListInput(input.filter);
  return exportedEvents(ctx, input, filter, input.pageEvents ?? EXPORT_PAGE_EVENTS);
}

/**
 * An export's audit entry, written as its first read starts: the filter, with a search's text
 * left out (it may quote a body), and an endpoint id kept only when it is the team's (another
 * team's id finds nothing, and the entry does not repeat it).
 */
async function recordExport(ctx: Pick<ServiceContext, "orm">, input: { teamId: string; by?: AuditedBy }, filter: ExportFilter): Promise<void> {
  await ctx.orm.em.fork().transactional(async (em) => {
    const { search, endpointId, ...named } = filter;
    const endpoint = endpointId ? await findOwnedEndpoint(em, input.teamId, { id: endpointId }) : null;
    const shown = Object.fromEntries(
      Object.entries({ ...named, endpointId: endpoint?.id ?? (endpointId ? "not this team's" : undefined), search: search ? "set" : undefined }).filter(([, value]) => value !== undefined && value !== null),
    );
    const target = endpoint ? { type: "endpoint" as const, id: endpoint.id, name: endpoint.name } : { type: "team" as const, id: input.teamId, name: null };
    await recordAudit(em, input.by, { teamId: input.teamId, action: "events.export", target, changes: { filter: shown } });
  });
}

async function* exportedEvents(ctx: Pick<ServiceContext, "orm">, input: { teamId: string; by?: AuditedBy }, filter: ReturnType<typeof parseEventListInput>["filter"], pageEvents: number) {
  const { teamId } = input;
  await recordExport(ctx, input, filter);
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
