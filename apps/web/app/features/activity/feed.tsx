import { useNavigate } from "@remix-run/react";
import { useEffect, useRef, useState, type ReactNode } from "react";
import { VolumeStrip, type ActivitySeries } from "../../components/activity-charts";
import { DataTable } from "../../components/data-table";
import { EventPreview } from "../../components/event-preview";
import { EventRow, FEED_COLUMNS, type FeedRow } from "../../components/feed-row";
import { useRowOpener } from "../../components/hooks";
import { ListFooter, useOlderPages } from "../../components/list-page";
import { LiveIndicator } from "../../components/live-status";
import { PageHeader } from "../../components/ui";
import { useFeedKeys } from "../../components/use-feed-keys";
import { useLiveEvents } from "../../components/use-live-events";
import { useAccess } from "../../components/use-team";
import { trpc } from "../../lib/trpc.client";
import { listInput, type EndpointOption, type Filter } from "./activity-filter";
import { FeedEmpty } from "./feed-empty";
import { ExportLinks, PauseControl } from "./feed-controls";
import { MAX_ROWS, mergeRows, newestFirst, useFreshRows, useRowReplays, useSplitView, type FeedState } from "./feed-state";
import { useLiveVolume } from "./use-live-volume";

/** The page under its filter form: the header (Live badge, Pause), the list and, on wide screens, the selected event. */
export function Feed({
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
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [paused, setPaused] = useState(false);
  // Live rows that arrived while paused, by id (the latest version of each), applied on Resume.
  const [held, setHeld] = useState<ReadonlyMap<string, FeedRow>>(() => new Map());
  const [lastLiveAt, setLastLiveAt] = useState<Date | null>(null);
  const openRow = useRowOpener();
  const navigate = useNavigate();
  const split = useSplitView();
  const { replays, replayRow } = useRowReplays();
  // Capture-only endpoints have no original destination to replay to: no button on their rows.
  const captureOnly = new Set(endpoints.filter((endpoint) => !endpoint.destinationUrl).map((endpoint) => endpoint.id));
  // A viewer sees the replay buttons disabled, with why on hover.
  const { reason: replayLocked } = useAccess("developer");
  const pausedRef = useRef(paused);
  pausedRef.current = paused;
  // The strip follows the endpoint filter, and every live batch (new captures, outcomes).
  const [volumeSeries, refreshVolume] = useLiveVolume(volume, filter.endpointId);

  // New loader data for the same filter (a revalidation): fold it in.
  useEffect(() => {
    setState((current) => mergeRows(current, initialEvents));
  }, [initialEvents]);

  const rowsRef = useRef(state.rows);
  rowsRef.current = state.rows;
  const { fresh, addRows } = useFreshRows(rowsRef, setState);

  // The live feed: a new id is a new row, a known id an update in place; held back while paused.
  const connection = useLiveEvents(listInput(filter), (rows) => {
    if (rows.length === 0) return;
    setLastLiveAt(new Date());
    refreshVolume();
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

  // The volume above the filters: all endpoints', or the filtered endpoint's (the other filters
  // do not apply: the rollups count per endpoint); none before the first endpoint.
  const stripEndpoint = filter.endpointId ? (endpoints.find((endpoint) => endpoint.id === filter.endpointId)?.name ?? null) : null;
  const strip = volumeSeries && endpoints.length > 0 ? <VolumeStrip series={volumeSeries} endpointName={stripEndpoint} /> : null;

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
            <DataTable className="events-table stacks-on-phone" caption="Events, newest first. j and k move the selection, Enter opens it, / searches." columns={FEED_COLUMNS}>
              {state.rows.map((row) => (
                <EventRow
                  key={row.id}
                  row={row}
                  fresh={fresh.has(row.id)}
                  selected={row.id === selected?.id}
                  replay={replays.get(row.id)}
                  canReplay={!captureOnly.has(row.endpointId)}
                  replayLocked={replayLocked}
                  onClick={(event) => (split && !event.metaKey && !event.ctrlKey ? setSelectedId(row.id) : openRow(event, `/events/${row.id}`))}
                  onReplay={() => replayRow(row)}
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
