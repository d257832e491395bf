import { Link } from "@remix-run/react";
import { useEffect, useState, type FormEvent } from "react";
import { errorMessage } from "../lib/errors";
import { plural } from "../lib/format";
import type { BulkJob } from "../lib/replay";
import { trpc } from "../lib/trpc.client";
import { SubmitButton, UrlField } from "./form-fields";
import { Alert, Card, FormError, Icon } from "./ui";
import "./bulk-replay.css";

/** Which events a bulk replay takes ("all" is sent as null). */
const SELECTIONS = [
  { value: "failed", label: "Failed events" },
  { value: "delivered", label: "Delivered events" },
  { value: "pending", label: "Pending events" },
  { value: "captured", label: "Captured events" },
  { value: "all", label: "All events" },
] as const;
type Selection = (typeof SELECTIONS)[number]["value"];

const POLL_MS = 500;

/**
 * Replays many of an endpoint's events at once (its failed ones by default) on the server,
 * showing the job's progress until it finishes.
 */
export function BulkReplayCard({ endpointId, destinationUrl }: { endpointId: string; destinationUrl: string | null }) {
  const [selection, setSelection] = useState<Selection>("failed");
  const [target, setTarget] = useState<"original" | "custom">(destinationUrl ? "original" : "custom");
  const [customUrl, setCustomUrl] = useState("");
  const [starting, setStarting] = useState(false);
  const [job, setJob] = useState<BulkJob | null>(null);
  const [error, setError] = useState<string | null>(null);
  const running = job?.state === "running";

  // No destination (any more): only a custom URL is possible.
  useEffect(() => {
    if (!destinationUrl) setTarget("custom");
  }, [destinationUrl]);

  // While the job runs, ask for its progress every POLL_MS.
  useEffect(() => {
    if (!job || job.state !== "running") return;
    let stopped = false;
    const timer = setTimeout(() => {
      trpc()
        .replays.bulk.query({ id: job.id })
        .then((next) => {
          if (!stopped) setJob(next);
        })
        .catch((failure: unknown) => {
          if (!stopped) setError(`Lost track of the bulk replay (${errorMessage(failure)}): reload the page to see its replays.`);
        });
    }, POLL_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [job]);

  async function start(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (starting || running) return;
    const url = customUrl.trim();
    if (target === "custom" && url === "") {
      setError("Enter the URL to replay the events to.");
      return;
    }
    setError(null);
    setStarting(true);
    try {
      const started = await trpc().replays.startBulk.mutate({
        endpointId,
        environment: target,
        customUrl: target === "custom" ? url : null,
        status: selection === "all" ? null : selection,
      });
      setJob(started);
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setStarting(false);
    }
  }

  const chosen = SELECTIONS.find((option) => option.value === (job ? (job.statusFilter ?? "all") : selection)) ?? SELECTIONS[0];
  const busy = starting || running;

  return (
    <Card
      title={
        <>
          <Icon name="refresh" /> Bulk replay
        </>
      }
      description="Send many of this endpoint’s events again, a few at a time, on the server. Their status does not change: each replay is recorded on its own."
      className="bulk-replay"
    >
      <form className="bulk-form" onSubmit={start} noValidate>
        <div className="field">
          <label htmlFor="bulk-events">Events</label>
          <select id="bulk-events" name="status" value={selection} onChange={(event) => setSelection(event.target.value as Selection)} disabled={busy}>
            {SELECTIONS.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="bulk-target">Target</label>
          <select
            id="bulk-target"
            name="environment"
            value={target}
            onChange={(event) => setTarget(event.target.value as "original" | "custom")}
            disabled={busy}
            aria-describedby="bulk-target-hint"
          >
            <option value="original" disabled={!destinationUrl}>
              Original destination
            </option>
            <option value="custom">Custom URL</option>
          </select>
        </div>
        {target === "custom" ? (
          <div className="bulk-custom">
            <UrlField
              id="bulk-custom-url"
              label="Custom URL"
              name="customUrl"
              placeholder="https://staging.example.com/webhooks"
              value={customUrl}
              onChange={(event) => setCustomUrl(event.target.value)}
              disabled={busy}
            />
          </div>
        ) : null}
        <div className="bulk-submit">
          <SubmitButton busy={busy} busyLabel={starting ? "Starting…" : "Replaying…"} icon={<Icon name="send" />}>
            Replay events
          </SubmitButton>
        </div>
      </form>
      <p id="bulk-target-hint" className="hint bulk-hint">
        {target === "original" && destinationUrl ? (
          <>
            Each event goes to <span className="mono break">{destinationUrl}</span> with its captured path and query.
          </>
        ) : destinationUrl ? (
          "Each event goes to the custom URL as it is."
        ) : (
          "This endpoint has no destination URL: replay to a custom URL, or add a destination in Settings below."
        )}
      </p>

      {job ? <BulkProgress job={job} label={chosen.label.toLowerCase()} endpointId={endpointId} /> : null}
      <FormError message={error} />
    </Card>
  );
}

function BulkProgress({ job, label, endpointId }: { job: BulkJob; label: string; endpointId: string }) {
  const running = job.state === "running";
  const max = Math.max(job.total, 1);
  const percent = job.total === 0 ? 100 : Math.min(100, Math.round((job.done / job.total) * 100));
  return (
    <div className="bulk-progress" data-testid="bulk-progress" data-state={job.state}>
      <div className="bulk-progress-head">
        <span className="bulk-progress-label">{running ? <>Replaying {label}…</> : job.state === "finished" ? "Finished" : "Stopped"}</span>
        <span className="bulk-progress-count" data-testid="bulk-count">
          {job.done} / {job.total}
        </span>
      </div>
      <div
        className={`progress-bar${running ? " is-running" : ""}`}
        role="progressbar"
        aria-label="Bulk replay progress"
        aria-valuemin={0}
        aria-valuemax={max}
        aria-valuenow={Math.min(job.done, max)}
        aria-valuetext={`${job.done} of ${plural(job.total, "event")} replayed`}
      >
        <div className="progress-bar-fill" style={{ width: `${percent}%` }} />
      </div>
      <div role="status" className="bulk-status">
        {running ? null : (
          <p className={`bulk-summary${job.failed > 0 ? " has-failures" : job.total === 0 ? " is-empty" : ""}`} data-testid="bulk-summary">
            <strong>
              {job.done} replayed: {job.delivered} delivered, {job.failed} failed
            </strong>
            {job.total === 0 ? <span className="muted"> — there were no {label} to replay.</span> : null}{" "}
            {job.done > 0 ? (
              <Link to={`/replays?endpointId=${encodeURIComponent(endpointId)}`} className="text-link">
                See the replays <Icon name="arrow-right" />
              </Link>
            ) : null}
          </p>
        )}
      </div>
      {job.state === "interrupted" ? (
        <Alert tone="error" role="alert">
          {job.error ?? "The bulk replay stopped before the end."} What was sent is recorded; start it again to replay the rest.
        </Alert>
      ) : null}
    </div>
  );
}
