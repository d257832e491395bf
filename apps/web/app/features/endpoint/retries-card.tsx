import { ConfirmDialog } from "../../components/confirm-dialog";
import { RetrySettingsForm } from "../../components/delivery";
import { IntentButton } from "../../components/form-fields";
import { Card, FormError, FormSuccess, Icon } from "../../components/ui";
import { plural } from "../../lib/format";
import type { EndpointPageData } from "./endpoint-data.server";

type SaveResult = { ok: true; savedAt: number } | { ok: false; error: string } | undefined;
type RetryFailedResult = { ok: true; count: number } | { ok: false; error: string } | undefined;

/** The retry policy and pausing, and "Retry failed events" with what came of it. */
export function RetriesCard({
  endpoint,
  saving,
  result,
  retryFailedResult,
  onRetryFailed,
}: {
  endpoint: EndpointPageData["endpoint"];
  saving: boolean;
  result: SaveResult;
  retryFailedResult: RetryFailedResult;
  onRetryFailed: () => void;
}) {
  const retryKey = [JSON.stringify(endpoint.retryPolicy), endpoint.pauseAfterFailures ?? "", result?.ok ? result.savedAt : 0].join("\u0000");
  return (
    <Card
      title="Retries"
      id="retries"
      description="When the destination fails (no answer, or an answer that is not 2xx), Rehook tries the event again later, waiting longer each time."
    >
      {endpoint.destinationCount > 1 ? (
        <p className="note" data-testid="first-destination-note">
          These settings are the first destination’s (of {endpoint.destinationCount}). Each destination has its own retries and pausing: edit the others under{" "}
          <a href="#destinations">Destinations</a>.
        </p>
      ) : null}
      <RetrySettingsForm
        key={retryKey}
        settings={{ retryPolicy: endpoint.retryPolicy, pauseAfterFailures: endpoint.pauseAfterFailures, consecutiveFailures: endpoint.consecutiveFailures }}
        hasDestination={endpoint.destinationUrl !== null}
        saving={saving}
        saved={!!result?.ok}
        error={result && !result.ok ? result.error : null}
      />
      <div className="recovery-row">
        <div>
          <p className="danger-title">Retry failed events</p>
          <p className="muted small">Gives every failed event of this endpoint one more attempt, to its destination.</p>
        </div>
        <button type="button" className="button secondary" onClick={onRetryFailed} disabled={endpoint.destinationUrl === null}>
          <Icon name="refresh" />
          Retry failed events
        </button>
      </div>
      {retryFailedResult?.ok ? (
        <div className="recovery-result" data-testid="retry-failed-result">
          <FormSuccess
            message={
              retryFailedResult.count === 0
                ? "There were no failed events to retry."
                : endpoint.forwardingPaused
                  ? `${plural(retryFailedResult.count, "failed event")} queued for another attempt. Forwarding is paused: they are sent once you resume it.`
                  : `${plural(retryFailedResult.count, "failed event")} queued for another attempt. They show as pending in Activity until they are sent.`
            }
          />
        </div>
      ) : null}
      {retryFailedResult && !retryFailedResult.ok ? (
        <div className="recovery-result">
          <FormError message={retryFailedResult.error} />
        </div>
      ) : null}
    </Card>
  );
}

/** Asks before every failed event goes back to pending. */
export function RetryFailedDialog({ endpoint, open, busy, onClose }: { endpoint: EndpointPageData["endpoint"]; open: boolean; busy: boolean; onClose: () => void }) {
  return (
    <ConfirmDialog
      open={open}
      onClose={onClose}
      tone="default"
      title="Retry failed events?"
      description={
        <p>
          Every event of “{endpoint.name}” whose delivery failed goes back to pending and is sent again to{" "}
          <span className="mono break">{endpoint.destinationUrl ?? "its destination"}</span> once more (one new attempt each). Your destination may receive requests
          it has already answered.
        </p>
      }
    >
      <IntentButton intent="retryFailed" className="button primary" busy={busy} busyLabel="Retrying…" preventScrollReset>
        Retry failed events
      </IntentButton>
    </ConfirmDialog>
  );
}
