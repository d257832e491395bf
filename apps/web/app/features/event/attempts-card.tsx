import { Link } from "@remix-run/react";
import type { ReactNode } from "react";
import { AttemptTimeline } from "../../components/attempts";
import { PAUSED_ATTEMPT_TEXT, TimeUntil } from "../../components/delivery";
import { Alert, Card, Icon } from "../../components/ui";
import type { EventPageData } from "./event-data.server";

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

/** Each attempt to deliver the event, the next one due, and Retry now. */
export function AttemptsCard({
  event,
  nextAttemptAt,
  canRetry,
  forwardingPaused,
  retry,
  retryLocked,
  onRetry,
  resolution,
}: {
  event: EventPageData["event"];
  nextAttemptAt: EventPageData["event"]["nextAttemptAt"];
  canRetry: boolean;
  forwardingPaused: boolean;
  retry: RetryState;
  /** Why the member's role may not retry (the button is disabled, this on hover). */
  retryLocked?: string;
  onRetry: () => void;
  /** Its failed delivery's resolution, or Mark resolved (delivery-resolution.tsx). */
  resolution?: ReactNode;
}) {
  const attempts = event.attempts;
  return (
    <Card
      title={
        <>
          Delivery attempts <span className="count-pill">{attempts.length}</span>
        </>
      }
      description={
        nextAttemptAt && forwardingPaused ? (
          <span data-testid="next-attempt-line">{PAUSED_ATTEMPT_TEXT}.</span>
        ) : nextAttemptAt ? (
          <span data-testid="next-attempt-line">
            Next attempt <TimeUntil value={nextAttemptAt} className="fg" />, following the endpoint’s retry policy.
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
      {forwardingPaused && canRetry ? (
        <p className="note" data-testid="event-endpoint-paused">
          Forwarding to <Link to={`/endpoints/${event.endpointId}`}>{event.endpointName}</Link> is paused: this event waits, and Retry now queues it, until
          forwarding is resumed on the endpoint’s page.
        </p>
      ) : null}
      {attempts.length === 0 ? (
        <p className="muted">No attempt has finished yet.</p>
      ) : (
        <AttemptTimeline eventId={event.id} attempts={attempts} nextAttemptAt={nextAttemptAt} paused={forwardingPaused} />
      )}
      {resolution}
      <RetryNowFeedback retry={retry} />
    </Card>
  );
}
