import { eventCursor, restEventDetail, restEventList } from "@rehook/http";
import { eventContracts, getEvent, listEvents, parseInput, type EventSummary } from "@rehook/services";
import { contractFields, contractFlags, fromFlags } from "../contract-options.js";
import { deliveriesCell, deliveriesColor } from "../output/deliveries.js";
import { eventDetailText } from "../output/event-detail.js";
import { instant, renderTable, statusColor, type Column } from "../output/table.js";
import { asMember, memberOptions } from "./as-member.js";
import { defineCommand } from "./define.js";
import { FILTER_FLAGS, FILTER_HELP } from "./events.js";
import { initOption } from "./with-database.js";

const listContract = eventContracts.listEventsContract;
/** The list contract's filter fields (as `events export` takes them) and its paging. */
const LIST_FLAGS = { ...FILTER_FLAGS, limit: "limit", offset: "offset" };
const LIST_HELP = { ...FILTER_HELP, limit: "at most this many, 1 to 100 (default 20)", offset: "skip this many first (at most 10,000; --cursor pages deeper)" };

/** Where the event came in: its path with the query. */
const requestPath = (event: Pick<EventSummary, "path" | "query">) => `${event.path}${event.query ? `?${event.query}` : ""}`;

const EVENT_COLUMNS: Column<EventSummary>[] = [
  { header: "ID", width: 36, value: (e) => e.id },
  { header: "RECEIVED", width: 20, value: (e) => instant(e.receivedAt) },
  { header: "ENDPOINT", width: 16, value: (e) => e.endpointName },
  { header: "METHOD", width: 7, value: (e) => e.method },
  { header: "PATH", width: 28, value: requestPath },
  { header: "EVENT", width: 28, value: (e) => `${e.source}/${e.eventType}` },
  { header: "STATUS", width: 9, value: (e) => e.status, color: (e) => statusColor(e.status) },
  { header: "HTTP", width: 4, align: "right", value: (e) => (e.responseStatus === null ? "-" : String(e.responseStatus)) },
  { header: "LATENCY", width: 9, align: "right", value: (e) => (e.latencyMs === null ? "-" : `${e.latencyMs} ms`) },
  // Each destination's state (the API's deliveries[].status): a paused one names the destination to resume.
  { header: "DELIVERIES", width: 60, value: deliveriesCell, color: deliveriesColor },
];

/** Under the table: which rows these are, of how many, and the flag for the next page. */
function pageLine(page: { events: unknown[]; nextCursor: string | null; total?: { value: number; capped: boolean } }, offset: number): string {
  const total = page.total ? `${page.total.capped ? "more than " : ""}${page.total.value.toLocaleString("en-US")}` : "?";
  const older = page.nextCursor === null ? "" : `; older: --cursor ${eventCursor.encode(page.nextCursor)}`;
  return `${(offset + 1).toLocaleString("en-US")}-${(offset + page.events.length).toLocaleString("en-US")} of ${total} events${older}`;
}

export const eventsListCommand = defineCommand(
  ["events", "list"],
  {
    usage:
      "rehook events list --email <email> [--team <slug>] [--endpoint <id>] [--status <status>] [--source <s>] [--event-type <t>] [--signature <valid|invalid|missing>] [--received-after <time>] [--received-before <time>] [--q <text>] [--limit <n>] [--offset <n>|--cursor <c>] [--json]",
    summary: "List a team's events, newest first, with the API's filters: a table, or with --json the API's page ({data, meta}).",
    options: {
      ...memberOptions,
      ...contractFlags(contractFields(listContract), LIST_FLAGS, LIST_HELP),
      cursor: { type: "string", description: "the next (older) page: the --cursor printed under the table (the API's meta.next_cursor)" },
      json: { type: "boolean", description: "print what GET /api/v1/events answers, for scripts" },
      ...initOption,
    },
  } as const,
  async (options, context) => {
    // The API's page: its defaults (limit 20), its fixed input (the total counted), its cursor.
    const rest = listContract.rest!;
    const input = parseInput(listContract.input, {
      ...rest.defaults,
      ...fromFlags(contractFields(listContract), LIST_FLAGS, options),
      ...(options.cursor !== undefined ? { before: eventCursor.decode(options.cursor) } : {}),
      ...rest.fixed,
    });
    const page = await asMember(context, options, listContract, ({ orm }, actor) => listEvents({ orm }, { teamId: actor.teamId, ...input }), options);
    if (options.json) return restEventList(page, input);
    if (page.events.length === 0) {
      context.stdout.write("No events match.\n");
      return undefined;
    }
    context.stdout.write(`${renderTable(page.events, EVENT_COLUMNS, context.client.color)}\n\n${pageLine(page, input.offset)}\n`);
    return undefined;
  },
);

export const eventsGetCommand = defineCommand(
  ["events", "get"],
  {
    usage: "rehook events get <id> --email <email> [--team <slug>] [--json]",
    summary: "Show one event: the request (headers, body), what became of it and every delivery attempt; --json prints the API's detail.",
    arguments: ["id"],
    options: {
      ...memberOptions,
      json: { type: "boolean", description: "print what GET /api/v1/events/{id} answers, for scripts" },
      ...initOption,
    },
  } as const,
  async (options, context, [id]) => {
    const { id: eventId } = parseInput(eventContracts.getEventContract.input, { id });
    const event = await asMember(context, options, eventContracts.getEventContract, ({ orm }, actor) => getEvent({ orm }, { teamId: actor.teamId, eventId }), options);
    if (options.json) return restEventDetail(event);
    context.stdout.write(`${eventDetailText(event, context.client.color)}\n`);
    return undefined;
  },
);
