import { truncateText } from "@rehook/core/browser";
import { isUuid } from "./format";
import { isSignatureStatus, type SignatureStatus } from "./ingress";

/** The filter of a list page (Activity, Replays): one endpoint and one status, each optional. */
export type ListFilter<Status extends string = string> = { endpointId?: string; status?: Status };

/** Activity's time ranges, as its URL carries them (?since=24h). */
export const SINCE_OPTIONS = [
  { value: "1h", label: "Last hour", ms: 60 * 60_000 },
  { value: "24h", label: "Last 24 hours", ms: 24 * 60 * 60_000 },
  { value: "7d", label: "Last 7 days", ms: 7 * 24 * 60 * 60_000 },
  { value: "30d", label: "Last 30 days", ms: 30 * 24 * 60 * 60_000 },
] as const;
export type Since = (typeof SINCE_OPTIONS)[number]["value"];

/** The range a search without one reads (core's DEFAULT_SEARCH_WINDOW_MS; apps/web/test/search-time-filter.test.ts fails when that changes). */
export const SEARCH_WINDOW: Since = "24h";

/**
 * Activity's Time menu. No range means every event, but a search without one reads the last
 * 24 hours: while searching, there is no "Any time", and without a range the 24-hour choice
 * stands for none (value ""), so the menu shows the window the results come from.
 */
export function timeMenu(filter: { search?: string; since?: Since }): { anyLabel?: string; options: ReadonlyArray<{ value: string; label: string }> } {
  if (!filter.search) return { anyLabel: "Any time", options: SINCE_OPTIONS };
  if (filter.since) return { options: SINCE_OPTIONS };
  return { options: SINCE_OPTIONS.map((option) => (option.value === SEARCH_WINDOW ? { value: "", label: option.label } : option)) };
}

/** Activity's filter: the list filter, plus a search, a sender, an event type and a time range. */
export type EventListFilter<Status extends string = string> = ListFilter<Status> & {
  search?: string;
  source?: string;
  eventType?: string;
  since?: Since;
  /** Only events whose signature check found this (endpoints that verify signatures). */
  signature?: SignatureStatus;
  /** "1": leave out events a replay has delivered (offered with the Failed status). */
  unresolved?: "1";
};

/** The filter in a list page's URL (?endpointId=…&status=…); a malformed value is left out. */
export function readListFilter<Status extends string>(request: Request, isStatus: (value: unknown) => value is Status): ListFilter<Status> {
  const params = new URL(request.url).searchParams;
  const endpointParam = params.get("endpointId");
  const statusParam = params.get("status");
  return {
    ...(isUuid(endpointParam) ? { endpointId: endpointParam } : {}),
    ...(isStatus(statusParam) ? { status: statusParam } : {}),
  };
}

/**
 * A text parameter, trimmed, at most 200 characters (never half a surrogate pair, which the
 * server would refuse); blank is absent. Other text the server refuses (a NUL) is kept: the
 * page answers 400 with the server's reason rather than quietly showing another filter.
 */
function textParam(params: URLSearchParams, name: string): string | undefined {
  const value = truncateText((params.get(name) ?? "").trim(), 200);
  return value === "" ? undefined : value;
}

/** Activity's filter from its URL (?q=…&source=…&eventType=…&since=24h&signature=…, and the list filter's). */
export function readEventListFilter<Status extends string>(request: Request, isStatus: (value: unknown) => value is Status): EventListFilter<Status> {
  const params = new URL(request.url).searchParams;
  const search = textParam(params, "q");
  const source = textParam(params, "source");
  const eventType = textParam(params, "eventType");
  const since = SINCE_OPTIONS.find((option) => option.value === params.get("since"))?.value;
  const signature = params.get("signature");
  return {
    ...readListFilter(request, isStatus),
    ...(search ? { search } : {}),
    ...(source ? { source } : {}),
    ...(eventType ? { eventType } : {}),
    ...(since ? { since } : {}),
    ...(isSignatureStatus(signature) ? { signature } : {}),
    ...(params.get("unresolved") === "1" ? { unresolved: "1" as const } : {}),
  };
}

/** When a time range starts, from `now`. */
export function sinceStart(since: Since, now: number): Date {
  return new Date(now - SINCE_OPTIONS.find((option) => option.value === since)!.ms);
}

/** The URL parameter each filter field is carried in. */
const PARAMS: Record<keyof EventListFilter, string> = { endpointId: "endpointId", status: "status", search: "q", source: "source", eventType: "eventType", since: "since", signature: "signature", unresolved: "unresolved" };

/** The filter as a query string (?endpointId=…&q=…), for links and the filter form. */
export function listFilterQuery(filter: EventListFilter): string {
  const params = new URLSearchParams();
  for (const [field, name] of Object.entries(PARAMS)) {
    const value = filter[field as keyof EventListFilter];
    if (value) params.set(name, value);
  }
  return params.toString();
}

/** One string per filter: a new one starts the list (and the filter form) afresh. */
export function listFilterKey(filter: EventListFilter): string {
  return listFilterQuery(filter);
}

export function hasListFilter(filter: EventListFilter): boolean {
  return listFilterQuery(filter) !== "";
}

/**
 * The session export's URL for Activity's filter (/api/events/export, the API's parameter
 * names): a time range becomes its start from `now`. "Hide resolved" is not an export
 * filter: failed events are exported whether or not a replay delivered them.
 */
export function exportHref(filter: EventListFilter, format: "ndjson" | "har", now: number): string {
  const params = new URLSearchParams({ format });
  if (filter.endpointId) params.set("endpoint_id", filter.endpointId);
  if (filter.status) params.set("status", filter.status);
  if (filter.source) params.set("source", filter.source);
  if (filter.eventType) params.set("event_type", filter.eventType);
  if (filter.search) params.set("q", filter.search);
  if (filter.signature) params.set("signature", filter.signature);
  if (filter.since) params.set("received_after", sinceStart(filter.since, now).toISOString());
  return `/api/events/export?${params}`;
}
