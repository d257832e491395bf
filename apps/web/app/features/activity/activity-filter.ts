import { EVENT_STATUSES, STATUS_LABELS, type EventStatus } from "../../lib/format";
import { sinceStart, type EventListFilter } from "../../lib/list-filter";

export type Filter = EventListFilter<EventStatus>;
export type EndpointOption = { id: string; name: string; webhookUrl: string; destinationUrl: string | null };

export const STATUS_OPTIONS = EVENT_STATUSES.map((status) => ({ value: status, label: STATUS_LABELS[status] }));
export const RESOLVED_OPTIONS = [{ value: "1", label: "Hide resolved" }];

/** The filter as events.list and events.live take it: a time range becomes its start, from now. */
export function listInput(filter: Filter) {
  const { since, unresolved, ...rest } = filter;
  return { ...rest, ...(since ? { receivedAfter: sinceStart(since, Date.now()) } : {}), ...(unresolved ? { unresolved: true } : {}) };
}
