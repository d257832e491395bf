import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData, useNavigate } from "@remix-run/react";
import { useCallback, useEffect, useRef, useState, type ReactNode } from "react";
import { VolumeStrip, type ActivitySeries } from "../components/activity-charts";
import { DataTable } from "../components/data-table";
import { EventPreview } from "../components/event-preview";
import { EventRow, FEED_COLUMNS, type FeedRow, type RowReplay } from "../components/feed-row";
import { useRowOpener } from "../components/hooks";
import { FilterField, ListFilters, ListFooter, NoMatchesCard, useOlderPages } from "../components/list-page";
import { LiveIndicator } from "../components/live-status";
import { useFeedKeys } from "../components/use-feed-keys";
import { useLiveEvents } from "../components/use-live-events";
import { EmptyCard, Icon, PageHeader, RouteError, TestEventSnippet } from "../components/ui";
import { errorMessage, throwIfBadRequest } from "../lib/errors";
import { EVENT_STATUSES, isEventStatus, plural, STATUS_LABELS, type EventStatus } from "../lib/format";
import { exportHref, hasListFilter, listFilterKey, readEventListFilter, SINCE_OPTIONS, sinceStart, type EventListFilter } from "../lib/list-filter";
import { SIGNATURE_STATUS_CHOICES } from "../lib/ingress";
import { trpc } from "../lib/trpc.client";
import { requireUser } from "../lib/session.server";

export const meta: MetaFunction = () => [{ title: "Activity · Rehook" }];

type Filter = EventListFilter<EventStatus>;
type EndpointOption = { id: string; name: string; webhook_url: string; destination_url: string | null };

/** Rows kept in memory: the live feed drops the oldest beyond this (Load older brings them back). */
const MAX_ROWS = 500;
/** The split view (list and selected event side by side) from this width up. */
const SPLIT_VIEW_QUERY = "(min-width: 1200px)";

const STATUS_OPTIONS = EVENT_STATUSES.map((status) => ({ value: status, label: STATUS_LABELS[status] }));
const RESOLVED_OPTIONS = [{ value: "1", label: "Hide resolved by replay" }];

export async function loader({ context, request }: LoaderFunctionArgs) {
  requireUser(context, request);
  const filter = readEventListFilter(request, isEventStatus);
  const [page, endpoints, volume] = await Promise.all([
    context.caller.events.list({ ...listInput(filter), limit: 50 }).catch((error: unknown) => {
      throwIfBadRequest(error);
      throw error;
    }),
    context.caller.endpoints.list(),
    // The strip is not worth failing the page for: without it the feed shows alone.
    context.caller.events.volume({ range: "day" }).catch(() => null),
  ]);
  return {
    filter,
    // The export links' time range starts from here (the server's clock, so the page hydrates as rendered).
    renderedAt: Date.now(),
    volume,
    events: page.events,
    nextCursor: page.nextCursor,
    endpoints: endpoints.map((endpoint) => ({ id: endpoint.id, name: endpoint.name, webhook_url: endpoint.webhook_url, destination_url: endpoint.destination_url })),
  };
}

/** The filter as events.list and events.live take it: a time range becomes its start, from now. */
function listInput(filter: Filter) {
  const { since, unresolved, ...rest } = filter;
  return { ...rest, ...(since ? { receivedAfter: sinceStart(since, Date.now()) } : {}), ...(unresolved ? { unresolved: true } : {}) };
}

export default function Activity() {
  const { filter, events, nextCursor, endpoints, volume } = useLoaderData<typeof loader>();
  const filterKey = listFilterKey(filter);
  const filters = (
    <>
      <ListFilters path="/events" label="Filter events" filter={filter} endpoints={endpoints} statuses={STATUS_OPTIONS}>
        {filter.status === "failed" ? (
          <FilterField id="filter-unresolved" label="Resolved" name="unresolved" value={filter.unresolved} filterKey={filterKey} anyLabel="Include resolved by replay" options={RESOLVED_OPTIONS} />
        ) : null}
        <FilterField id="filter-since" label="Time" name="since" value={filter.since} filterKey={filterKey} anyLabel="Any time" options={SINCE_OPTIONS} />
        <FilterField id="filter-type" label="Event type" name="eventType" value={filter.eventType} filterKey={filterKey} placeholder="invoice.paid" />
        <FilterField id="filter-source" label="Source" name="source" value={filter.source} filterKey={filterKey} placeholder="stripe" />
        <FilterField id="filter-signature" label="Signature" name="signature" value={filter.signature} filterKey={filterKey} anyLabel="Any" options={SIGNATURE_STATUS_CHOICES} />
        <FilterField
          id="filter-search"
          label="Search"
          name="q"
          type="search"
          value={filter.search}
          filterKey={filterKey}
          placeholder="text in the body or a header  ( / )"
          title="Finds events whose body or headers contain this text. Without a time range, searches the last 24 hours. Press / to come here."
        />
      </ListFilters>
      {filter.search && !filter.since ? <p className="muted small">Searching the last 24 hours; choose a time range to search further back.</p> : null}
    </>
  );
  return <Feed key={filterKey} filter={filter} filters={filters} initialEvents={events} initialCursor={nextCursor} endpoints={endpoints} volume={volume} />;
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

/** Whether the window is wide enough for the split view (false on the server). */
function useSplitView(): boolean {
  const [wide, setWide] = useState(false);
  useEffect(() => {
    const query = window.matchMedia(SPLIT_VIEW_QUERY);
    const update = () => setWide(query.matches);
    update();
    query.addEventListener("change", update);
    return () => query.removeEventListener("change", update);
  }, []);
  return wide;
}

/** The page under its filter form: the header (Live badge, Pause), the list and, on wide screens, the selected event. */
function Feed({
  filter,
  filters,
  initialEvents,
  initialCursor,
  endpoints,
  volume,
}: {
  filter: Filter;
  filters: ReactNode;
  initialEvents: FeedRow[];
  initialCursor: string | null;
  endpoints: EndpointOption[];
  volume: ActivitySeries | null;
}) {
  const [state, setState] = useState<FeedState>(() => ({ rows: initialEvents, cursor: initialCursor }));
  const [fresh, setFresh] = useState<ReadonlySet<string>>(() => new Set());
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [paused, setPaused] = useState(false);
  // Live rows that arrived while paused, by id (the latest version of each), applied on Resume.
  const [held, setHeld] = useState<ReadonlyMap<string, FeedRow>>(() => new Map());
  const [lastLiveAt, setLastLiveAt] = useState<Date | null>(null);
  const openRow = useRowOpener();
  const navigate = useNavigate();
  const split = useSplitView();
  const [replays, setReplays] = useState<ReadonlyMap<string, RowReplay>>(() => new Map());
  // Capture-only endpoints have no original destination to replay to: no button on their rows.
  const captureOnly = new Set(endpoints.filter((endpoint) => !endpoint.destination_url).map((endpoint) => endpoint.id));
  const pausedRef = useRef(paused);
  pausedRef.current = paused;

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

  const addRows = useCallback((incoming: FeedRow[]) => {
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
    setState((current) => mergeRows(current, incoming));
  }, []);

  // The live feed: a new id is a new row, a known id an update in place; held back while paused.
  const connection = useLiveEvents(listInput(filter), (rows) => {
    if (rows.length === 0) return;
    setLastLiveAt(new Date());
    if (!pausedRef.current) return addRows(rows);
    setHeld((previous) => {
      const next = new Map(previous);
      for (const row of rows) next.set(row.id, row);
      // Bounded like the feed: the newest MAX_ROWS are kept.
      return next.size > MAX_ROWS ? new Map([...next].sort(([a], [b]) => (a < b ? 1 : -1)).slice(0, MAX_ROWS)) : next;
    });
  });

  function resume() {
    addRows([...held.values()]);
    setHeld(new Map());
    setPaused(false);
  }

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

  const selected = state.rows.find((row) => row.id === selectedId) ?? (split ? state.rows[0] : undefined);
  const selectedIndex = selected ? state.rows.indexOf(selected) : -1;

  useFeedKeys({
    move(step) {
      const rows = rowsRef.current;
      if (rows.length === 0) return;
      const next = rows[Math.max(0, Math.min(rows.length - 1, selectedIndex + step))]!;
      setSelectedId(next.id);
      const element = document.querySelector<HTMLElement>(`[data-testid="event-row"][data-event-id="${next.id}"]`);
      element?.focus({ preventScroll: true });
      element?.scrollIntoView({ block: "nearest" });
    },
    open() {
      if (selected) navigate(`/events/${selected.id}`);
    },
    focusSearch() {
      document.getElementById("filter-search")?.focus();
    },
  });

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

  const newest = state.rows[0]?.receivedAt ?? null;
  const lastEventAt = lastLiveAt && (!newest || lastLiveAt > new Date(newest)) ? lastLiveAt : newest;
  const header = (
    <PageHeader
      title="Activity"
      beside={<LiveIndicator state={connection} lastEventAt={lastEventAt} />}
      description="Every request your endpoints receive, newest first. New events appear here as they arrive."
      actions={
        <>
          <ExportLinks filter={filter} />
          <PauseControl paused={paused} heldCount={held.size} onPause={() => setPaused(true)} onResume={resume} />
        </>
      }
    />
  );

  // All endpoints' volume, above the filters (it does not follow them); none before the first endpoint.
  const strip = volume && endpoints.length > 0 ? <VolumeStrip series={volume} /> : null;

  if (state.rows.length === 0) {
    return (
      <>
        {header}
        {strip}
        {filters}
        <FeedEmpty filter={filter} endpoints={endpoints} />
      </>
    );
  }

  return (
    <>
      {header}
      {strip}
      {filters}
      <div className={`feed-layout${split ? " is-split" : ""}`} data-testid="feed-layout" data-split={split}>
        <div className="feed-list">
          <div className="card table-card">
            <DataTable className="events-table" caption="Events, newest first. j and k move the selection, Enter opens it, / searches." columns={FEED_COLUMNS}>
              {state.rows.map((row) => (
                <EventRow
                  key={row.id}
                  row={row}
                  fresh={fresh.has(row.id)}
                  selected={row.id === selected?.id}
                  replay={replays.get(row.id)}
                  canReplay={!captureOnly.has(row.endpointId)}
                  onClick={(event) => (split && !event.metaKey && !event.ctrlKey ? setSelectedId(row.id) : openRow(event, `/events/${row.id}`))}
                  onReplay={() => replayRow(row.id)}
                />
              ))}
            </DataTable>
          </div>
          <ListFooter count={state.rows.length} noun="event" cursor={state.cursor} older={older} />
          <p className="muted small feed-keys-hint">
            <kbd>j</kbd> <kbd>k</kbd> move · <kbd>Enter</kbd> opens · <kbd>/</kbd> searches
          </p>
        </div>
        {split ? <EventPreview row={selected} /> : null}
      </div>
    </>
  );
}

/** Pause stops applying live rows (they are kept, and counted); Resume applies them. */
/** Downloads of every event the current filters find (plain links: the server streams the file). */
function ExportLinks({ filter }: { filter: Filter }) {
  const now = useLoaderData<typeof loader>().renderedAt;
  return (
    <span className="feed-export" data-testid="feed-export">
      <a className="button secondary" href={exportHref(filter, "ndjson", now)} download title="Every event these filters find, one JSON object per line">
        Export NDJSON
      </a>
      <a className="button secondary" href={exportHref(filter, "har", now)} download title="Every event these filters find, as a HAR 1.2 file">
        Export HAR
      </a>
    </span>
  );
}

function PauseControl({ paused, heldCount, onPause, onResume }: { paused: boolean; heldCount: number; onPause: () => void; onResume: () => void }) {
  if (!paused) {
    return (
      <button type="button" className="button secondary" onClick={onPause} data-testid="feed-pause" title="Stop adding new events to the list while you read it">
        Pause
      </button>
    );
  }
  return (
    <span className="feed-paused">
      <span className="muted small" data-testid="feed-held" role="status">
        {heldCount === 0 ? "Paused: new events wait here." : `Paused: ${plural(heldCount, "new event")} waiting.`}
      </span>
      <button type="button" className="button primary" onClick={onResume} data-testid="feed-resume">
        Resume
      </button>
    </span>
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
