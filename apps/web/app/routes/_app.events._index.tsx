import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import type { RouterOutputs } from "@rehook/api";
import { useCallback, useEffect, useRef, useState } from "react";
import { Badge, StatusBadge } from "../components/badges";
import { TimeUntil } from "../components/delivery";
import { RelativeTime } from "../components/relative-time";
import { DataTable, EndpointCell, LatencyCell } from "../components/data-table";
import { useRowOpener } from "../components/hooks";
import { FilterField, ListFilters, ListFooter, NoMatchesCard, useOlderPages } from "../components/list-page";
import { EmptyCard, Icon, PageHeader, RouteError, TestEventSnippet } from "../components/ui";
import { errorMessage } from "../lib/errors";
import { EVENT_STATUSES, isEventStatus, STATUS_LABELS, type EventStatus } from "../lib/format";
import { hasListFilter, listFilterKey, readEventListFilter, SINCE_OPTIONS, sinceStart, type EventListFilter } from "../lib/list-filter";
import type { ReplayAttempt } from "../lib/replay";
import { trpc } from "../lib/trpc.client";
import { requireUser } from "../lib/session.server";

export const meta: MetaFunction = () => [{ title: "Activity · Rehook" }];

type EventSummary = RouterOutputs["events"]["list"]["events"][number];
/** A feed row: receivedAt is a Date from tRPC, and may be a string after a loader. */
type FeedRow = Omit<EventSummary, "receivedAt"> & { receivedAt: Date | string };
type Filter = EventListFilter<EventStatus>;
type EndpointOption = { id: string; name: string; webhook_url: string; destination_url: string | null };

/** Rows kept in memory: the live feed drops the oldest beyond this (Load older brings them back). */
const MAX_ROWS = 500;

const STATUS_OPTIONS = EVENT_STATUSES.map((status) => ({ value: status, label: STATUS_LABELS[status] }));

export async function loader({ context, request }: LoaderFunctionArgs) {
  requireUser(context, request);
  const filter = readEventListFilter(request, isEventStatus);
  const [page, endpoints] = await Promise.all([context.caller.events.list({ ...listInput(filter), limit: 50 }), context.caller.endpoints.list()]);
  return {
    filter,
    events: page.events,
    nextCursor: page.nextCursor,
    endpoints: endpoints.map((endpoint) => ({ id: endpoint.id, name: endpoint.name, webhook_url: endpoint.webhook_url, destination_url: endpoint.destination_url })),
  };
}

/** The filter as events.list and events.live take it: a time range becomes its start, from now. */
function listInput(filter: Filter) {
  const { since, ...rest } = filter;
  return { ...rest, ...(since ? { receivedAfter: sinceStart(since, Date.now()) } : {}) };
}

export default function Activity() {
  const { filter, events, nextCursor, endpoints } = useLoaderData<typeof loader>();
  const [connection, setConnection] = useState<Connection>("connecting");
  const filterKey = listFilterKey(filter);
  return (
    <>
      <PageHeader
        title="Activity"
        beside={<LiveIndicator state={connection} />}
        description="Every request your endpoints receive, newest first. New events appear here as they arrive."
      />

      <ListFilters path="/events" label="Filter events" filter={filter} endpoints={endpoints} statuses={STATUS_OPTIONS}>
        <FilterField id="filter-since" label="Time" name="since" value={filter.since} filterKey={filterKey} anyLabel="Any time" options={SINCE_OPTIONS} />
        <FilterField id="filter-type" label="Event type" name="eventType" value={filter.eventType} filterKey={filterKey} placeholder="invoice.paid" />
        <FilterField id="filter-source" label="Source" name="source" value={filter.source} filterKey={filterKey} placeholder="stripe" />
        <FilterField
          id="filter-search"
          label="Search"
          name="q"
          type="search"
          value={filter.search}
          filterKey={filterKey}
          placeholder="text in the body or a header"
          title="Finds events whose body or headers contain this text. Without a time range, searches the last 24 hours."
        />
      </ListFilters>
      {filter.search && !filter.since ? <p className="muted small">Searching the last 24 hours; choose a time range to search further back.</p> : null}

      <Feed
        key={listFilterKey(filter)}
        filter={filter}
        initialEvents={events}
        initialCursor={nextCursor}
        endpoints={endpoints}
        onConnectionChange={setConnection}
      />
    </>
  );
}

type Connection = "connecting" | "live" | "reconnecting";

function LiveIndicator({ state }: { state: Connection }) {
  const text = state === "live" ? "Live" : state === "reconnecting" ? "Reconnecting…" : "Connecting…";
  return (
    <span className={`live-indicator live-${state}`} data-testid="live-indicator" data-state={state} title={state === "live" ? "New events appear as they arrive" : "Waiting for the live connection"}>
      <span className="live-dot" aria-hidden="true" />
      {text}
    </span>
  );
}

type FeedState = { rows: FeedRow[]; cursor: string | null };

/** Newest first by id (UUIDv7 ids sort by time). */
const newestFirst = (a: FeedRow, b: FeedRow) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/**
 * Incoming rows folded in: one row per id (the incoming one wins), newest first, at most
 * MAX_ROWS; when the oldest are dropped, Load older starts from the oldest row kept.
 */
function mergeRows(current: FeedState, incoming: FeedRow[]): FeedState {
  const byId = new Map(current.rows.map((row) => [row.id, row]));
  for (const row of incoming) byId.set(row.id, row);
  const rows = [...byId.values()].sort(newestFirst);
  return rows.length > MAX_ROWS ? { rows: rows.slice(0, MAX_ROWS), cursor: rows[MAX_ROWS - 1]!.id } : { rows, cursor: current.cursor };
}

function Feed({
  filter,
  initialEvents,
  initialCursor,
  endpoints,
  onConnectionChange,
}: {
  filter: Filter;
  initialEvents: FeedRow[];
  initialCursor: string | null;
  endpoints: EndpointOption[];
  onConnectionChange: (state: Connection) => void;
}) {
  const [state, setState] = useState<FeedState>(() => ({ rows: initialEvents, cursor: initialCursor }));
  const [fresh, setFresh] = useState<ReadonlySet<string>>(() => new Set());
  const openRow = useRowOpener();
  const [replays, setReplays] = useState<ReadonlyMap<string, RowReplay>>(() => new Map());
  // Capture-only endpoints have no original destination to replay to: no button on their rows.
  const captureOnly = new Set(endpoints.filter((endpoint) => !endpoint.destination_url).map((endpoint) => endpoint.id));
  const filterRef = useRef(filter);
  filterRef.current = filter;

  // New loader data for the same filter (a revalidation): fold it in.
  useEffect(() => {
    setState((current) => mergeRows(current, initialEvents));
  }, [initialEvents]);

  const rowsRef = useRef(state.rows);
  rowsRef.current = state.rows;
  const freshTimers = useRef(new Set<ReturnType<typeof setTimeout>>());
  useEffect(() => {
    const timers = freshTimers.current;
    return () => {
      for (const timer of timers) clearTimeout(timer);
    };
  }, []);

  const addRows = useCallback((incoming: FeedRow[], highlight: boolean) => {
    if (highlight) {
      const known = new Set(rowsRef.current.map((row) => row.id));
      const added = incoming.filter((row) => !known.has(row.id)).map((row) => row.id);
      if (added.length > 0) {
        setFresh((previous) => new Set([...previous, ...added]));
        const timer = setTimeout(() => {
          freshTimers.current.delete(timer);
          setFresh((previous) => {
            const next = new Set(previous);
            for (const id of added) next.delete(id);
            return next;
          });
        }, 2500);
        freshTimers.current.add(timer);
      }
    }
    setState((current) => mergeRows(current, incoming));
  }, []);

  // The live feed: a new id is a new row, a known id an update in place.
  useEffect(() => {
    let stopped = false;
    let subscription: { unsubscribe(): void } | undefined;
    let retryTimer: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;
    let connectedBefore = false;
    const input = listInput(filterRef.current);

    const catchUp = () => {
      // Whatever happened while the connection was down.
      trpc()
        .events.list.query({ ...input, limit: 50 })
        .then((page) => {
          if (!stopped) addRows(page.events, true);
        })
        .catch(() => {});
    };

    const retry = () => {
      subscription?.unsubscribe();
      if (stopped) return;
      onConnectionChange("reconnecting");
      failures += 1;
      clearTimeout(retryTimer);
      retryTimer = setTimeout(start, Math.min(30_000, 1000 * 2 ** Math.min(failures, 5)));
    };

    function start() {
      if (stopped) return;
      subscription = trpc().events.live.subscribe(input, {
        onData(rows) {
          addRows(rows, true);
        },
        onConnectionStateChange(connection) {
          if (stopped) return;
          if (connection.state === "pending") {
            onConnectionChange("live");
            // Whatever arrived between the page load (or the drop) and this connection.
            catchUp();
            connectedBefore = true;
            failures = 0;
          } else if (connection.state === "connecting") {
            onConnectionChange(connectedBefore || connection.error ? "reconnecting" : "connecting");
          }
        },
        onError() {
          retry();
        },
        onComplete() {
          if (!stopped) retry();
        },
      });
    }

    start();
    return () => {
      stopped = true;
      clearTimeout(retryTimer);
      subscription?.unsubscribe();
    };
  }, [addRows, onConnectionChange]);

  // An older page: rows already shown (perhaps updated live since) are kept as they are.
  const older = useOlderPages(
    state.cursor,
    (before) => trpc().events.list.query({ ...listInput(filter), before, limit: 50 }),
    (page) =>
      setState((current) => {
        const byId = new Map(current.rows.map((row) => [row.id, row]));
        for (const row of page.events) if (!byId.has(row.id)) byId.set(row.id, row);
        const rows = [...byId.values()].sort(newestFirst);
        return { rows, cursor: page.nextCursor };
      }),
  );

  /** Replays a row's event to its endpoint's current destination, in place: no dialog, no navigation. */
  async function replayRow(eventId: string) {
    const setRow = (state: RowReplay) => setReplays((previous) => new Map(previous).set(eventId, state));
    setRow({ state: "sending" });
    try {
      setRow({ state: "done", attempt: await trpc().replays.create.mutate({ eventId, environment: "original" }) });
    } catch (error) {
      setRow({ state: "error", message: errorMessage(error) });
    }
  }

  if (state.rows.length === 0) {
    return <FeedEmpty filter={filter} endpoints={endpoints} />;
  }

  return (
    <>
      <div className="card table-card">
        <DataTable
          className="events-table"
          caption="Events, newest first"
          columns={["Time", "Endpoint", "Source", "Event type", "Status", { label: "Latency", className: "num" }, { label: <span className="sr-only">Replay</span>, className: "cell-replay" }]}
        >
          {state.rows.map((row) => {
            const replay = replays.get(row.id);
            return (
            <tr
              key={row.id}
              data-testid="event-row"
              data-event-id={row.id}
              data-status={row.status}
              className={`event-row${fresh.has(row.id) ? " is-new" : ""}${replay && replay.state !== "sending" ? " has-replay" : ""}`}
              onClick={(event) => openRow(event, `/events/${row.id}`)}
            >
              <td data-label="Time" className="cell-time">
                <RelativeTime value={row.receivedAt} />
              </td>
              <EndpointCell name={row.endpointName} />
              <td data-label="Source" className="cell-source">
                <span className={`source-chip${row.source === "unknown" ? " is-unknown" : ""}`}>{row.source}</span>
              </td>
              <td data-label="Event type" className="cell-type">
                <Link to={`/events/${row.id}`} className={`event-link${row.eventType === "unknown" ? " is-unknown" : ""}`} prefetch="intent">
                  {row.method !== "POST" ? <span className="method">{row.method}</span> : null}
                  {row.eventType}
                </Link>
              </td>
              <td data-label="Status" className="cell-status">
                <StatusBadge status={row.status} title={row.responseStatus !== null ? `Destination answered HTTP ${row.responseStatus}` : undefined} />
                {row.status === "pending" && row.nextAttemptAt ? (
                  <span className="row-retrying" data-testid="row-retrying">
                    retrying <TimeUntil value={row.nextAttemptAt} />
                  </span>
                ) : null}
              </td>
              <LatencyCell ms={row.latencyMs} />
              <td className="cell-replay">
                {captureOnly.has(row.endpointId) ? null : <RowReplayControl state={replay} onReplay={() => replayRow(row.id)} />}
              </td>
            </tr>
            );
          })}
        </DataTable>
      </div>
      <ListFooter count={state.rows.length} noun="event" cursor={state.cursor} older={older} />
    </>
  );
}

type RowReplay = { state: "sending" } | { state: "done"; attempt: ReplayAttempt } | { state: "error"; message: string };

/** A feed row's replay button and, once it has run, the outcome next to it. */
function RowReplayControl({ state, onReplay }: { state: RowReplay | undefined; onReplay: () => void }) {
  const sending = state?.state === "sending";
  const attempt = state?.state === "done" ? state.attempt : null;
  const announcement = attempt
    ? attempt.status === "delivered"
      ? `Replayed to the original destination: HTTP ${attempt.response_status}`
      : `Replay failed${attempt.response_status !== null ? `: HTTP ${attempt.response_status}` : attempt.error ? `: ${attempt.error}` : ""}`
    : "";
  return (
    <div className="row-replay">
      {attempt ? (
        <Link to={`/replays/${attempt.id}`} className="row-replay-outcome" data-testid="row-replay-result" data-status={attempt.status} title={attempt.error ?? `Sent to ${attempt.destination_url}`}>
          <Badge tone={attempt.status === "delivered" ? "delivered" : "failed"}>
            {attempt.status === "delivered" ? "Replayed" : "Replay failed"}
            {attempt.response_status !== null ? <span className="badge-extra"> · {attempt.response_status}</span> : null}
          </Badge>
        </Link>
      ) : state?.state === "error" ? (
        <span className="row-replay-outcome row-replay-error" role="alert" data-testid="row-replay-result" data-status="error" title={state.message}>
          {state.message}
        </span>
      ) : null}
      <button
        type="button"
        className={`button ghost small row-replay-button${sending ? " is-busy" : ""}`}
        aria-label="Replay to original"
        title="Replay to original"
        disabled={sending}
        onClick={(event) => {
          event.stopPropagation();
          onReplay();
        }}
      >
        {sending ? <span className="spinner spinner-small" aria-hidden="true" /> : <Icon name="refresh" />}
      </button>
      <span className="sr-only" aria-live="polite">
        {sending ? "Replaying…" : announcement}
      </span>
    </div>
  );
}

function FeedEmpty({ filter, endpoints }: { filter: Filter; endpoints: EndpointOption[] }) {
  if (endpoints.length === 0) {
    return (
      <EmptyCard
        icon={<Icon name="inbox" />}
        title="No events yet"
        actions={
          <Link to="/" className="button primary">
            <Icon name="plus" />
            Create an endpoint
          </Link>
        }
      >
        <p>Events show up here when one of your endpoints receives a request. Create an endpoint to get a capture URL.</p>
      </EmptyCard>
    );
  }
  const endpoint = endpoints.find((candidate) => candidate.id === filter.endpointId) ?? endpoints[0]!;
  // An endpoint alone is no narrowing: its page waits for its first event like the whole list.
  const { endpointId: _endpoint, ...narrowing } = filter;
  if (hasListFilter(narrowing)) {
    return (
      <NoMatchesCard
        path="/events"
        icon={<Icon name="inbox" />}
        title={filter.search ? "Nothing found" : filter.status ? `No ${STATUS_LABELS[filter.status].toLowerCase()} events` : "No matching events"}
      >
        <p>Nothing matches these filters yet. New matching events will appear here as they arrive.</p>
      </NoMatchesCard>
    );
  }
  return (
    <EmptyCard icon={<Icon name="send" />} title="Waiting for the first event">
      <p>
        Send a request to <strong>{endpoint.name}</strong> and it will appear here straight away — no need to reload.
      </p>
      <div className="empty-snippet">
        <TestEventSnippet webhookUrl={endpoint.webhook_url} />
      </div>
    </EmptyCard>
  );
}

export function ErrorBoundary() {
  return <RouteError />;
}
