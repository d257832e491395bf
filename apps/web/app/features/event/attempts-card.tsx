import { Link } from "@remix-run/react";
import type { ReactNode } from "react";
import { AttemptTimeline } from "../../components/attempts";
import { TimeUntil } from "../../components/delivery";
import { destinationNames } from "../../components/delivery-states";
import { Alert, Card, Icon } from "../../components/ui";
import type { EventPageData } from "./event-data.server";
import { PausedUntil, type PausedDeliveries } from "./paused-note";

/** Retry now's progress: its request, then whether it was sent. */
export type RetryState = { state: "idle" | "sending" | "sent" } | { state: "error"; message: string };

/** "Retry now" on an event's attempts or deliveries: disabled while sending or when the member's role may not (why, on hover). */
export function RetryNowButton({ retry, locked, onRetry }: { retry: RetryState; locked?: string; onRetry: () => void }) {
  return (
    <button
      type="button"
      className="button secondary"
      onClick={onRetry}
      disabled={retry.state === "sending" || locked !== undefined}
      title={locked}
      aria-describedby={retry.state === "error" ? "retry-now-error" : undefined}
    >
      {retry.state === "sending" ? <span className="spinner spinner-small" aria-hidden="true" /> : <Icon name="refresh" />}
      {retry.state === "sending" ? "Retrying…" : "Retry now"}
    </button>
  );
}

/** What Retry now did: "started" for screen readers, or why it failed (the button points here). */
export function RetryNowFeedback({ retry }: { retry: RetryState }) {
  return (
    <>
      <p className="sr-only" aria-live="polite">
        {retry.state === "sent" ? "Retry started." : ""}
      </p>
      {retry.state === "error" ? (
        <div className="recovery-result" id="retry-now-error">
          <Alert tone="error" role="alert">
            {retry.message}
          </Alert>
        </div>
      ) : null}
    </>
  );
}

/**
 * Each attempt to deliver the event to its one destination (named, with its URL), the next one
 * due, and Retry now; while that destination is paused, which one to resume.
 */
export function AttemptsCard({
  event,
  nextAttemptAt,
  canRetry,
  paused,
  retry,
  retryLocked,
  onRetry,
  resolution,
}: {
  event: EventPageData["event"];
  nextAttemptAt: EventPageData["event"]["nextAttemptAt"];
  canRetry: boolean;
  /** Deliveries held by a paused destination. */
  paused: PausedDeliveries;
  retry: RetryState;
  /** Why the member's role may not retry (the button is disabled, this on hover). */
  retryLocked?: string;
  onRetry: () => void;
  /** Its failed delivery's resolution, or Mark resolved (delivery-resolution.tsx). */
  resolution?: ReactNode;
}) {
  const attempts = event.attempts;
  const held = paused.length > 0;
  // Where they went: the event's one delivery, or (forwarded before routing to a destination removed since) the attempts' own URL.
  const delivery = event.deliveries.find((candidate) => candidate.status !== "filtered");
  const destination = delivery ? { name: delivery.name, url: delivery.url } : attempts[0] ? { name: attempts[0].destinationName, url: attempts[0].destinationUrl } : null;
  return (
    <Card
      title={
        <>
          Delivery attempts <span className="count-pill">{attempts.length}</span>
        </>
      }
      description={
        held ? (
          <span data-testid="next-attempt-line">
            <PausedUntil endpointId={event.endpointId} paused={paused} />.
          </span>
        ) : nextAttemptAt ? (
          <span data-testid="next-attempt-line">
            Next attempt <TimeUntil value={nextAttemptAt} className="fg" />, following the destination’s retry policy.
          </span>
        ) : event.status === "pending" ? (
          "Forwarding now."
        ) : (
          "Each time Rehook forwarded this event to its destination, oldest first."
        )
      }
      actions={canRetry ? <RetryNowButton retry={retry} locked={retryLocked} onRetry={onRetry} /> : undefined}
      className="attempts-card"
    >
      {destination ? (
        <p className="attempts-destination small" data-testid="attempts-destination">
          To <strong className="fg">{destinationNames([destination])}</strong>
          {destination.url ? (
            <>
              {" "}
              <span className="mono break muted">{destination.url}</span>
            </>
          ) : null}
        </p>
      ) : null}
      {held && canRetry ? (
        <p className="note" data-testid="event-destination-paused">
          Forwarding to <Link to={`/endpoints/${event.endpointId}#destinations`}>{destinationNames(paused)}</Link> is paused: this event waits, and Retry now queues it,
          until that destination is resumed on the endpoint’s page.
        </p>
      ) : null}
      {attempts.length === 0 && !held ? (
        <p className="muted">No attempt has finished yet.</p>
      ) : (
        <AttemptTimeline
          eventId={event.id}
          attempts={attempts}
          nextAttemptAt={nextAttemptAt}
          paused={held}
          pausedText={<PausedUntil endpointId={event.endpointId} paused={paused} />}
        />
      )}
      {resolution}
      <RetryNowFeedback retry={retry} />
    </Card>
  );
}
