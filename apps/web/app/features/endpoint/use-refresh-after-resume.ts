import { useEffect } from "react";
import { trpc } from "../../lib/trpc.client";
import { useSerialReload } from "../event/use-event-reload";

/**
 * After Resume, the events that waited are sent over the next moments: the page's data
 * (counts, health, recent events, charts) is loaded again as their outcomes arrive on the
 * live feed, so nobody has to reload the page to see them.
 */
export function useRefreshAfterResume(endpointId: string, resumed: boolean) {
  const reload = useSerialReload();
  useEffect(() => {
    if (!resumed) return;
    const subscription = trpc().events.live.subscribe(
      { endpointId },
      {
        // Outcomes may have landed between Resume's answer and the subscription.
        onStarted: () => reload(),
        onData(rows) {
          if (rows.length > 0) reload();
        },
      },
    );
    return () => subscription.unsubscribe();
    // `reload` never changes (useSerialReload).
  }, [resumed, endpointId]);
}
