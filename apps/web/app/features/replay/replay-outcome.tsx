import { Link } from "@remix-run/react";
import { useMemo } from "react";
import { HttpStatus, StatusBadge } from "../../components/badges";
import { PayloadBlock } from "../../components/payload";
import { Alert, Icon } from "../../components/ui";
import { formatLatency } from "../../lib/format";
import { environmentLabel, previewBody, type ReplayAttempt } from "../../lib/replay";
import { EditedBadge } from "./replay-table";

/** One attempt's outcome, as the replay dialog shows it. */
export function ReplayOutcome({ attempt }: { attempt: ReplayAttempt }) {
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
