import { Link } from "@remix-run/react";
import type { RouterOutputs } from "@rehook/api";
import type { MouseEvent } from "react";
import { formatBytes } from "../lib/format";
import { rowReplayTarget, type ReplayOutcomeData } from "../lib/replay";
import { Badge, HttpStatus, SignatureBadge } from "./badges";
import { EndpointCell, LatencyCell, Truncated } from "./data-table";
import { DeliveryDots, deliverySummary, EventStateBadge, ResumeHint, RetryingHint } from "./delivery-states";
import { RelativeTime } from "./relative-time";
import { Icon } from "./ui";
import "./feed-row.css";

type EventSummary = RouterOutputs["events"]["list"]["events"][number];
/** A feed row: receivedAt is a Date from tRPC, and may be a string after a loader. */
export type FeedRow = Omit<EventSummary, "receivedAt"> & { receivedAt: Date | string };

export type RowReplay = { state: "sending" } | { state: "done"; outcome: ReplayOutcomeData } | { state: "error"; message: string };

/** The feed's columns; `col-…` classes set their widths in feed-row.css. */
export const FEED_COLUMNS = [
  { label: "Time", className: "col-time" },
  { label: "Endpoint", className: "col-endpoint cell-endpoint" },
  { label: "Request", className: "col-request" },
  { label: "Source", className: "col-source" },
  { label: "Status", className: "col-status" },
  { label: "Response", className: "col-response" },
  { label: "Size", className: "num col-size" },
  { label: "Latency", className: "num col-latency cell-latency" },
  { label: <span className="sr-only">Replay</span>, className: "cell-replay col-replay" },
];

/** What was requested under the capture URL: the sub-path ("/" for none) and the query. */
export function requestPath(row: { path: string; query: string }): string {
  return `${row.path || "/"}${row.query ? `?${row.query}` : ""}`;
}

/**
 * A failed event whose every failed delivery was made good since (a replay to that
 * destination delivered, or a member marked it resolved): its status stays Failed.
 */
export function Resolved() {
  return (
    <Badge
      tone="delivered"
      dot={false}
      data-testid="resolved"
      title="Every failed delivery of this event was since delivered by a replay to its destination, or marked resolved by a member; its own status stays Failed."
    >
      resolved
    </Badge>
  );
}

/**
 * One event of the feed: time, endpoint, request (method, path, event type), status with each
 * destination's state (paused ones named, with where to resume them), response code, size,
 * latency, replay.
 */
export function EventRow({
  row,
  fresh,
  selected,
  replay,
  canReplay,
  replayLocked,
  onClick,
  onReplay,
}: {
  row: FeedRow;
  fresh: boolean;
  selected: boolean;
  replay: RowReplay | undefined;
  canReplay: boolean;
  /** Why the member's role may not replay (the button is disabled, this on hover). */
  replayLocked?: string;
  onClick: (event: MouseEvent<HTMLTableRowElement>) => void;
  onReplay: () => void;
}) {
  const path = requestPath(row);
  const summary = deliverySummary(row.deliveries);
  const resolved = row.resolved || (replay?.state === "done" && replay.outcome.eventResolved && row.status === "failed");
  return (
    <tr
      data-testid="event-row"
      data-event-id={row.id}
      data-status={row.status}
      aria-selected={selected}
      tabIndex={selected ? 0 : -1}
      className={`event-row${fresh ? " is-new" : ""}${selected ? " is-selected" : ""}${replay && replay.state !== "sending" ? " has-replay" : ""}`}
      onClick={onClick}
    >
      <td data-label="Time" className="cell-time">
        <RelativeTime value={row.receivedAt} />
      </td>
      <EndpointCell name={row.endpointName} />
      <td data-label="Request" className="cell-request">
        <Link to={`/events/${row.id}`} className={`event-link${row.eventType === "unknown" ? " is-unknown" : ""}`} prefetch="intent">
          {row.eventType}
        </Link>
        <span className="request-line" data-testid="row-request">
          <span className="method" data-testid="row-method">
            {row.method}
          </span>
          <Truncated text={path} className="mono request-path" />
        </span>
      </td>
      <td data-label="Source" className="cell-source">
        <span className={`source-chip${row.source === "unknown" ? " is-unknown" : ""}`}>{row.source}</span>
      </td>
      <td data-label="Status" className="cell-status">
        <div className="status-stack">
          <EventStateBadge status={row.status} summary={summary} />
          {resolved ? <Resolved /> : null}
          <SignatureBadge signature={row.signature} reason={row.signatureReason} />
          <DeliveryDots deliveries={row.deliveries} />
          <ResumeHint endpointId={row.endpointId} summary={summary} />
          {row.status === "pending" ? <RetryingHint summary={summary} fallback={row.nextAttemptAt} /> : null}
        </div>
      </td>
      <td data-label="Response" className="cell-response" data-testid="row-response">
        {summary.routed > 1 ? (
          // Several destinations answered on their own: no one status stands for the event (each is in the status column).
          <span className="muted" title={`Sent to ${summary.routed} destinations: each one's state is under Status`}>
            —
          </span>
        ) : row.responseStatus !== null || row.status === "failed" ? (
          <HttpStatus code={row.responseStatus} />
        ) : (
          <span className="muted">—</span>
        )}
      </td>
      <td data-label="Size" className="num cell-size" data-testid="row-size">
        {formatBytes(row.sizeBytes)}
      </td>
      <LatencyCell ms={row.latencyMs} />
      <td className="cell-replay">{canReplay ? <RowReplayControl label={rowReplayTarget(row).label} state={replay} locked={replayLocked} onReplay={onReplay} /> : null}</td>
    </tr>
  );
}

/**
 * A feed row's replay button (to its one destination, else to its failed destinations, else
 * to every destination it went to) and, once it has run, the outcome next to it: the first
 * failed attempt, or the first, with how many of several delivered.
 */
function RowReplayControl({ label, state, locked, onReplay }: { label: string; state: RowReplay | undefined; locked: string | undefined; onReplay: () => void }) {
  const sending = state?.state === "sending";
  const attempts = state?.state === "done" ? state.outcome.attempts : [];
  const attempt = attempts.find((each) => each.status !== "delivered") ?? attempts[0] ?? null;
  const delivered = attempts.filter((each) => each.status === "delivered").length;
  const count = attempts.length > 1 ? ` ${delivered}/${attempts.length}` : "";
  const announcement = attempt
    ? attempt.status === "delivered"
      ? `Replayed${attempts.length > 1 ? ` to ${attempts.length} destinations` : " to the original destination"}: HTTP ${attempt.responseStatus}`
      : `Replay failed${count}${attempt.responseStatus !== null ? `: HTTP ${attempt.responseStatus}` : attempt.error ? `: ${attempt.error}` : ""}`
    : "";
  return (
    <div className="row-replay">
      {attempt ? (
        <Link to={`/replays/${attempt.id}`} className="row-replay-outcome" data-testid="row-replay-result" data-status={attempt.status} title={attempt.error ?? `Sent to ${attempt.destinationUrl}`}>
          <Badge tone={attempt.status === "delivered" ? "delivered" : "failed"}>
            {attempt.status === "delivered" ? "Replayed" : "Replay failed"}
            {count}
            {attempt.responseStatus !== null ? <span className="badge-extra"> · {attempt.responseStatus}</span> : null}
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
        aria-label={label}
        title={locked ?? label}
        disabled={sending || locked !== undefined}
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
