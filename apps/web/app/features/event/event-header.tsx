import { Link } from "@remix-run/react";
import { senderAnswerText } from "@rehook/core/browser";
import { SignatureBadge } from "../../components/badges";
import { CopyButton } from "../../components/copy-button";
import { TimeUntil } from "../../components/delivery";
import { DeleteEventButton } from "../../components/delete-event";
import { deliverySummary, EventStateBadge } from "../../components/delivery-states";
import { Resolved } from "../../components/feed-row";
import { CopyPayloadButton, curlFromBody } from "../../components/inspector/payload-inspector";
import { RelativeTime } from "../../components/relative-time";
import { Breadcrumb, Icon, PageHeader } from "../../components/ui";
import type { EventPageData } from "./event-data.server";
import { PausedUntil, type PausedDeliveries } from "./paused-note";

/** The event's title, status, request line and actions (copy, replay, compare, delete). */
export function EventHeader({
  event,
  body,
  requestPath,
  nextAttemptAt,
  paused,
  historyCount,
  locked,
  onReplay,
}: {
  event: EventPageData["event"];
  body: EventPageData["body"];
  requestPath: string;
  nextAttemptAt: EventPageData["event"]["nextAttemptAt"];
  /** Deliveries held by a paused destination: the header names each destination to resume. */
  paused: PausedDeliveries;
  /** Replays listed in the history (at least what the event's count says). */
  historyCount: number;
  /** Why the member's role may not replay or delete (the buttons are disabled, this on hover). */
  locked: string | undefined;
  onReplay: () => void;
}) {
  return (
    <PageHeader
      eyebrow={<Breadcrumb parent="Activity" to="/events" current={event.id.slice(-12)} currentClassName="mono" />}
      title={<span className={`break${event.eventType === "unknown" ? " is-unknown-type" : ""}`}>{event.eventType}</span>}
      beside={
        <>
          <EventStateBadge status={event.status} summary={deliverySummary(event.deliveries)} />
          {event.resolved ? <Resolved /> : null}
          <SignatureBadge signature={event.signature} reason={event.signatureReason} />
        </>
      }
      description={
        <span className="header-meta">
          <span className="source-chip" title="Detected sender">
            {event.source}
          </span>
          <span className="mono request-line">
            <span className="method">{event.method}</span> <span className="break">{requestPath}</span>
          </span>
          <span>
            Received <RelativeTime value={event.receivedAt} />
          </span>
          {event.senderResponse ? (
            <span data-testid="sender-answer" title="What Rehook answered the sender when it captured this event">
              {senderAnswerText(event.senderResponse)}
            </span>
          ) : null}
          {paused.length > 0 ? (
            <span className="next-attempt-meta" data-testid="paused-header">
              <PausedUntil endpointId={event.endpointId} paused={paused} />
            </span>
          ) : null}
          {nextAttemptAt ? (
            <span className="next-attempt-meta" data-testid="next-attempt-header">
              Next attempt <TimeUntil value={nextAttemptAt} />
            </span>
          ) : null}
        </span>
      }
      actions={
        <>
          <CopyButton text={event.curl ?? (() => curlFromBody(event, body))} label="Copy as curl" className="button secondary" />
          <CopyPayloadButton body={body} truncated={event.bodyTruncated} previewBytes={event.bodyPreviewBytes} />
          <button
            type="button"
            className="button primary"
            onClick={onReplay}
            aria-keyshortcuts={locked ? undefined : "R"}
            title={locked ?? "Replay this event (R)"}
            disabled={locked !== undefined}
            data-testid="replay-event"
          >
            <Icon name="refresh" />
            Replay
            <kbd className="kbd-hint" aria-hidden="true">
              R
            </kbd>
          </button>
          {event.attempts.length + Math.max(event.replayCount, historyCount) >= 2 ? (
            <Link to={`/events/${event.id}/compare`} className="button secondary">
              Compare responses
            </Link>
          ) : null}
          <DeleteEventButton eventId={event.id} replayCount={event.replayCount} locked={locked} />
        </>
      }
    />
  );
}
