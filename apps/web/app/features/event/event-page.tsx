import { useLoaderData } from "@remix-run/react";
import { useCallback, useEffect, useState } from "react";
import { deliverySummary } from "../../components/delivery-states";
import { useAccess } from "../../components/use-team";
import { errorMessage } from "../../lib/errors";
import type { ReplayRow } from "../../lib/replay";
import { trpc } from "../../lib/trpc.client";
import { ReplayDialog } from "../replay/replay-dialog";
import type { SentReplay } from "../replay/send-replay";
import { AttemptsCard, type RetryState } from "./attempts-card";
import { DeliveriesCard } from "./deliveries-card";
import { DeliveryResolution } from "./delivery-resolution";
import { DetailsCard } from "./details-card";
import { DuplicateNotice } from "./duplicate-notice";
import { EventDataTabs } from "./event-data-tabs";
import type { loadEventPage } from "./event-data.server";
import { EventHeader } from "./event-header";
import { HISTORY_LIMIT } from "./history-limit";
import { ReplayHistoryCard } from "./replay-history-card";
import { useReloadAfter, useReloadWhileWaiting, useReplayShortcut, useSerialReload } from "./use-event-reload";
import "./event-page.css";

/** One captured event: its details, data, delivery attempts (by destination when it went to several) and replays. */
export function EventPage() {
  const {
    event,
    body,
    requestPath,
    response,
    replayChoices,
    history: loadedHistory,
    moreHistory: loadedMore,
  } = useLoaderData<typeof loadEventPage>();
  const reload = useSerialReload();
  const waiting = event.status === "pending";
  // Each delivery's state says which destinations hold it (paused); the others may still be trying.
  const summary = deliverySummary(event.deliveries);
  const paused = waiting ? summary.paused : [];
  const nextAttemptAt = waiting && !summary.heldByPause ? (summary.routed > 0 ? summary.nextAttemptAt : event.nextAttemptAt) : null;
  const canRetry = (event.status === "pending" || event.status === "failed") && event.destinationUrl !== null;
  const [retry, setRetry] = useState<RetryState>({ state: "idle" });
  // Replaying, retrying and deleting need a developer: a viewer sees the buttons disabled, with why.
  const { allowed: canChange, reason: locked } = useAccess("developer");

  async function retryNow() {
    setRetry({ state: "sending" });
    try {
      await trpc().events.retry.mutate({ id: event.id });
      setRetry({ state: "sent" });
      reload();
    } catch (error) {
      setRetry({ state: "error", message: errorMessage(error) });
    }
  }

  // While only paused deliveries wait, no due time passes: nothing to look again for.
  useReloadAfter(nextAttemptAt, reload);
  useReloadWhileWaiting(waiting, event, reload);

  const [replaying, setReplaying] = useState(false);
  const [history, setHistory] = useState<{ rows: ReplayRow[]; more: boolean }>({ rows: loadedHistory, more: loadedMore });
  useEffect(() => setHistory({ rows: loadedHistory, more: loadedMore }), [loadedHistory, loadedMore]);
  const refreshHistory = useCallback(() => {
    trpc()
      .replays.list.query({ eventId: event.id, limit: HISTORY_LIMIT })
      .then((page) => setHistory({ rows: page.replays, more: page.nextCursor !== null }))
      .catch(() => {});
  }, [event.id]);
  useReplayShortcut(setReplaying, canChange);
  // A replay that delivered to a destination may have resolved its failed delivery: the page reads it again.
  const afterReplay = useCallback(
    (sent: SentReplay) => (sent.attempts.some((attempt) => attempt.destinationId !== null && attempt.status === "delivered") ? reload() : refreshHistory()),
    [reload, refreshHistory],
  );

  return (
    <>
      <EventHeader
        event={event}
        body={body}
        requestPath={requestPath}
        nextAttemptAt={nextAttemptAt}
        paused={paused}
        historyCount={history.rows.length}
        locked={locked}
        onReplay={() => setReplaying(true)}
      />
      {event.duplicateOf ? <DuplicateNotice firstEventId={event.duplicateOf} /> : null}
      <DetailsCard event={event} />
      <EventDataTabs event={event} body={body} response={response} nextAttemptAt={nextAttemptAt} paused={paused} />
      {event.deliveries.length > 1 ? (
        <DeliveriesCard
          event={event}
          canRetry={canRetry}
          retry={retry}
          retryLocked={locked}
          onRetry={() => void retryNow()}
          onResolved={reload}
        />
      ) : event.attempts.length > 0 || canRetry || nextAttemptAt ? (
        <AttemptsCard
          event={event}
          nextAttemptAt={nextAttemptAt}
          canRetry={canRetry}
          paused={paused}
          retry={retry}
          retryLocked={locked}
          onRetry={() => void retryNow()}
          resolution={event.deliveries[0] ? <DeliveryResolution eventId={event.id} delivery={event.deliveries[0]} locked={locked} onResolved={reload} /> : null}
        />
      ) : null}
      <ReplayHistoryCard rows={history.rows} more={history.more} />
      <ReplayDialog open={replaying} onClose={() => setReplaying(false)} eventId={event.id} choices={replayChoices} onReplayed={afterReplay} />
    </>
  );
}
