import { useCallback, useEffect, useRef, useState } from "react";
import type { ActivitySeries } from "../../components/activity-charts";
import { trpc } from "../../lib/trpc.client";

/** The fewest milliseconds between two reads of the strip's series, however fast events arrive. */
const MIN_GAP_MS = 1000;

/**
 * The volume strip's series, kept current: `refresh` (called for each batch of live rows) reads
 * it again, one read at a time and at most one a second; a refresh asked for meanwhile runs
 * after. New loader data (a revalidation) replaces it.
 */
export function useLiveVolume(initial: ActivitySeries | null, endpointId: string | undefined): [ActivitySeries | null, () => void] {
  const [series, setSeries] = useState(initial);
  useEffect(() => setSeries(initial), [initial]);
  const state = useRef({ reading: false, again: false, lastAt: 0, timer: undefined as ReturnType<typeof setTimeout> | undefined, stopped: false });

  useEffect(() => {
    const current = state.current;
    current.stopped = false;
    return () => {
      current.stopped = true;
      clearTimeout(current.timer);
    };
  }, []);

  const refresh = useCallback(() => {
    const current = state.current;
    // A read already waiting will see this batch too.
    if (current.timer) return;
    if (current.reading) {
      current.again = true;
      return;
    }
    const read = () => {
      current.timer = undefined;
      current.reading = true;
      current.lastAt = Date.now();
      trpc()
        .events.volume.query({ range: "day", ...(endpointId ? { endpointId } : {}) })
        .then((next) => {
          // The same figures again (a reconnect's catch-up, an update in another bucket's past): no redraw.
          if (!current.stopped) setSeries((shown) => (shown && JSON.stringify(shown) === JSON.stringify(next) ? shown : next));
        })
        .catch(() => {})
        .finally(() => {
          current.reading = false;
          if (!current.again || current.stopped) return;
          current.again = false;
          current.timer = setTimeout(read, Math.max(0, current.lastAt + MIN_GAP_MS - Date.now()));
        });
    };
    const wait = current.lastAt + MIN_GAP_MS - Date.now();
    if (wait > 0) current.timer = setTimeout(read, wait);
    else read();
  }, [endpointId]);

  return [series, refresh];
}
