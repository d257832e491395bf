import { Link } from "@remix-run/react";
import { useEffect, useState, type FormEvent } from "react";
import { errorMessage } from "../lib/errors";
import { plural } from "../lib/format";
import type { BulkJob } from "../lib/replay";
import { trpc } from "../lib/trpc.client";
import { ConfirmDialog } from "./confirm-dialog";
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

/** A bulk replay waiting for the user's go-ahead: how many events, and where they go. */
type Pending = { count: number; capped: boolean; url: string; target: "original" | "custom" };

/**
 * Replays many of an endpoint's events at once (its failed ones by default) on the server,
 * showing the job's progress until it finishes. Both targets are real servers, so it asks
 * first, naming how many events go where (nothing to send: it starts, and says so).
 */
export function BulkReplayCard({ endpointId, destinationUrl }: { endpointId: string; destinationUrl: string | null }) {
  const [selection, setSelection] = useState<Selection>("failed");
  const [target, setTarget] = useState<"original" | "custom">(destinationUrl ? "original" : "custom");
  const [customUrl, setCustomUrl] = useState("");
  const [starting, setStarting] = useState(false);
  const [job, setJob] = useState<BulkJob | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState<Pending | null>(null);
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

  const status = selection === "all" ? undefined : selection;

  /** The form's submit: count what would be sent, then ask (or start at once when there is nothing). */
  async function review(event: FormEvent<HTMLFormElement>) {
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
      const { total } = await trpc().events.list.query({ endpointId, ...(status ? { status } : {}), limit: 1, withTotal: true });
      const count = total?.value ?? 0;
      if (count === 0) return await start(target, url);
      setPending({ count, capped: total?.capped ?? false, url: target === "custom" ? url : (destinationUrl ?? ""), target });
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setStarting(false);
    }
  }

  async function start(chosen: "original" | "custom", url: string) {
    setPending(null);
    setStarting(true);
    try {
      const started = await trpc().replays.startBulk.mutate({
        endpointId,
        environment: chosen,
        customUrl: chosen === "custom" ? url : null,
        status: status ?? null,
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
      <form className="bulk-form" onSubmit={review} noValidate>
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
      {/* Only while asking: a closed dialog's name ("Replay events?") would stand beside the form's fields. */}
      {pending ? <ConfirmBulkReplay pending={pending} label={SELECTIONS.find((option) => option.value === selection)!.label.toLowerCase().replace(/^all /, "")} onCancel={() => setPending(null)} onConfirm={(go) => void start(go.target, go.url)} /> : null}
    </Card>
  );
}

/** "Replay 3 failed events to https://…?": real requests to a real server, so the user says yes first. */
function ConfirmBulkReplay({
  pending,
  label,
  onCancel,
  onConfirm,
}: {
  pending: Pending | null;
  label: string;
  onCancel: () => void;
  onConfirm: (pending: Pending) => void;
}) {
  const count = pending ? `${pending.capped ? "at least " : ""}${pending.count.toLocaleString("en-US")}` : "";
  // "3 failed events", "1 failed event": the selection's words with the count.
  const events = pending ? `${count} ${pending.count === 1 ? label.replace(/events$/, "event") : label}` : "";
  return (
    <ConfirmDialog
      open={pending !== null}
      onClose={onCancel}
      tone="default"
      title={pending ? `Replay ${events}?` : "Replay events?"}
      description={
        pending ? (
          <p data-testid="bulk-confirm-text">
            {pending.count === 1 ? "It is" : "Each is"} sent again to{" "}
            <span className="mono break">{pending.url}</span>
            {pending.target === "original" ? " with its captured path and query" : ""}. The server there receives real requests; the events themselves do not change.
          </p>
        ) : null
      }
    >
      <button type="button" className="button primary" onClick={() => pending && onConfirm(pending)}>
        Replay {events}
      </button>
    </ConfirmDialog>
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
