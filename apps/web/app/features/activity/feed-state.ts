import { useCallback, useEffect, useRef, useState } from "react";
import type { FeedRow, RowReplay } from "../../components/feed-row";
import { errorMessage } from "../../lib/errors";
import { rowReplayTarget } from "../../lib/replay";
import { trpc } from "../../lib/trpc.client";

/** Rows kept in memory: the live feed drops the oldest beyond this (Load older brings them back). */
export const MAX_ROWS = 500;
/** The split view (list and selected event side by side) from this width up. */
const SPLIT_VIEW_QUERY = "(min-width: 1200px)";

export type FeedState = { rows: FeedRow[]; cursor: string | null };

/** Newest first by id (UUIDv7 ids sort by time). */
export const newestFirst = (a: FeedRow, b: FeedRow) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/**
 * Incoming rows folded in: one row per id (the incoming one wins), newest first, at most
 * MAX_ROWS; when the oldest are dropped, Load older starts from the oldest row kept.
 */
export function mergeRows(current: FeedState, incoming: FeedRow[]): FeedState {
  const byId = new Map(current.rows.map((row) => [row.id, row]));
  for (const row of incoming) byId.set(row.id, row);
  const rows = [...byId.values()].sort(newestFirst);
  return rows.length > MAX_ROWS ? { rows: rows.slice(0, MAX_ROWS), cursor: rows[MAX_ROWS - 1]!.id } : { rows, cursor: current.cursor };
}

/** Whether the window is wide enough for the split view (false on the server). */
export function useSplitView(): boolean {
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

/**
 * Rows added by `addRows` that were not there yet, for 2.5 s (they flash as new). `rowsRef`
 * holds the rows shown now.
 */
export function useFreshRows(rowsRef: { current: FeedRow[] }, setState: (update: (current: FeedState) => FeedState) => void) {
  const [fresh, setFresh] = useState<ReadonlySet<string>>(() => new Set());
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
    // rowsRef and setState never change.
  }, []);
  return { fresh, addRows };
}

/** Each row's in-place replay (to its destination, or its failed or matched ones: see rowReplayTarget; no dialog, no navigation). */
export function useRowReplays() {
  const [replays, setReplays] = useState<ReadonlyMap<string, RowReplay>>(() => new Map());
  async function replayRow(row: Pick<FeedRow, "id" | "resolved" | "deliveries">) {
    const eventId = row.id;
    const setRow = (state: RowReplay) => setReplays((previous) => new Map(previous).set(eventId, state));
    setRow({ state: "sending" });
    try {
      setRow({ state: "done", outcome: await trpc().replays.create.mutate({ eventId, environment: rowReplayTarget(row).environment }) });
    } catch (error) {
      setRow({ state: "error", message: errorMessage(error) });
    }
  }
  return { replays, replayRow };
}
