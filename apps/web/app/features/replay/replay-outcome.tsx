import { Link } from "@remix-run/react";
import { useMemo } from "react";
import { HttpStatus, StatusBadge } from "../../components/badges";
import { PayloadBlock } from "../../components/payload";
import { Alert, Icon } from "../../components/ui";
import { formatLatency } from "../../lib/format";
import { environmentLabel, previewBody, type DestinationChoice, type ReplayAttempt } from "../../lib/replay";
import { EditedBadge } from "./replay-table";
import type { SentReplay } from "./send-replay";

/** Every attempt a replay made (one per destination when it went to several), and whether that resolved the event. */
export function ReplayOutcomes({ sent, destinations }: { sent: SentReplay; destinations: DestinationChoice[] }) {
  const nameOf = (attempt: ReplayAttempt) => destinations.find((destination) => destination.id === attempt.destinationId)?.name ?? null;
  return (
    <div className="replay-outcomes" data-testid="replay-outcomes">
      {sent.attempts.map((attempt) => (
        <ReplayOutcome key={attempt.id} attempt={attempt} destinationName={sent.attempts.length > 1 || attempt.destinationId ? nameOf(attempt) : null} />
      ))}
      {sent.eventResolved ? (
        <p className="muted small" data-testid="replay-resolved">
          Every failed delivery of this event is resolved now.
        </p>
      ) : null}
    </div>
  );
}

/** One attempt's outcome, as the replay dialog shows it (with the destination's name when it went to one). */
export function ReplayOutcome({ attempt, destinationName = null }: { attempt: ReplayAttempt; destinationName?: string | null }) {
  const preview = useMemo(() => (attempt.responseBody === null ? null : previewBody(attempt.responseBody)), [attempt.responseBody]);
  return (
    <div className="replay-outcome" data-testid="replay-result" data-status={attempt.status}>
      <div className="response-summary">
        <StatusBadge status={attempt.status} />
        {attempt.responseStatus !== null ? <HttpStatus code={attempt.responseStatus} /> : null}
        {attempt.modified ? <EditedBadge /> : null}
        <span className="muted">
          Latency <strong className="fg">{formatLatency(attempt.latencyMs)}</strong>
        </span>
        <Link to={`/replays/${attempt.id}`} className="text-link replay-outcome-link">
          Open attempt <Icon name="arrow-right" />
        </Link>
      </div>
      <p className="muted small">
        {destinationName ? (
          <>
            <strong className="fg" data-testid="replay-destination-name">
              {destinationName}
            </strong>{" "}
            ·{" "}
          </>
        ) : null}
        {environmentLabel(attempt.environment)} · sent to{" "}
        <span className="mono break fg" data-testid="replay-destination">
          {attempt.destinationUrl}
        </span>
      </p>
      {attempt.error ? (
        <Alert tone="error" role="alert" testId="replay-error">
          {attempt.error}
        </Alert>
      ) : null}
      {preview ? (
        <>
          <PayloadBlock payload={preview.payload} testId="replay-response-body" label="Response body" />
          {preview.cut ? <p className="muted small">Only the beginning is shown here: open the attempt for the whole body.</p> : null}
        </>
      ) : attempt.responseStatus !== null ? (
        <p className="muted small">The target sent no body.</p>
      ) : null}
    </div>
  );
}
