import { Link } from "@remix-run/react";
import { useEffect, useState, type FormEvent, type ReactNode } from "react";
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

/** One of the endpoint's destinations, as the bulk replay offers it. */
export interface BulkDestination {
  id: string;
  name: string;
  url: string;
}

/**
 * Where each event goes: one destination ("destination:<id>"), each event's failed
 * deliveries or every destination it matched (with several destinations), or a custom URL.
 */
type Target = `destination:${string}` | "failed" | "matched" | "custom";

/** A bulk replay waiting for the user's go-ahead: how many events, and where they go (in words). */
type Pending = { count: number; capped: boolean; where: ReactNode; target: Target; url: string };

/** The request's target fields for a choice of the Target select. */
function targetFields(target: Target, url: string) {
  if (target === "custom") return { environment: "custom", customUrl: url };
  if (target === "failed" || target === "matched") return { environment: target };
  return { environment: "original", destinationId: target.slice("destination:".length) };
}

/**
 * Replays many of an endpoint's events at once (its failed ones by default) on the server,
 * showing the job's progress until it finishes: to one of its destinations, or (when it has
 * several) to each event's failed deliveries (the default) or every destination it matched,
 * or to a custom URL. Every target is a real server, so it asks first, naming how many
 * events go where (nothing to send: it starts, and says so).
 */
export function BulkReplayCard({ endpointId, destinations }: { endpointId: string; destinations: BulkDestination[] }) {
  const several = destinations.length > 1;
  const defaultTarget = (): Target => (several ? "failed" : destinations[0] ? `destination:${destinations[0].id}` : "custom");
  const [selection, setSelection] = useState<Selection>("failed");
  const [target, setTarget] = useState<Target>(defaultTarget);
  const [customUrl, setCustomUrl] = useState("");
  const [starting, setStarting] = useState(false);
  const [job, setJob] = useState<BulkJob | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [pending, setPending] = useState<Pending | null>(null);
  const running = job?.state === "running";

  // A destination removed, or the first added: the target follows what the endpoint has.
  const known = destinations.map((destination) => destination.id).join(",");
  useEffect(() => {
    setTarget((current) => (current.startsWith("destination:") && !known.split(",").includes(current.slice("destination:".length))) || (!several && (current === "failed" || current === "matched")) ? defaultTarget() : current);
    // defaultTarget reads the same destinations as `known`.
  }, [known, several]);
  const chosenDestination = target.startsWith("destination:") ? destinations.find((destination) => `destination:${destination.id}` === target) : undefined;

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
      // To the failed destinations: only failed events with a failure not resolved yet have anything to send.
      const counted = target === "failed" ? (status === undefined || status === "failed" ? { status: "failed" as const, unresolved: true } : null) : status ? { status } : {};
      const total = counted ? (await trpc().events.list.query({ endpointId, ...counted, limit: 1, withTotal: true })).total : { value: 0, capped: false };
      const count = total?.value ?? 0;
      if (count === 0) return await start(target, url);
      setPending({ count, capped: total?.capped ?? false, where: targetWords(target, url, chosenDestination), target, url });
    } catch (failure) {
      setError(errorMessage(failure));
    } finally {
      setStarting(false);
    }
  }

  async function start(chosen: Target, url: string) {
    setPending(null);
    setStarting(true);
    try {
      const started = await trpc().replays.startBulk.mutate({ endpointId, ...targetFields(chosen, url), status: status ?? null });
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
            onChange={(event) => setTarget(event.target.value as Target)}
            disabled={busy}
            aria-describedby="bulk-target-hint"
          >
            {several ? (
              <>
                <option value="failed">Each event’s failed destinations</option>
                <option value="matched">Every destination each event matched</option>
              </>
            ) : null}
            {destinations.map((destination) => (
              <option key={destination.id} value={`destination:${destination.id}`}>
                {several ? `Destination: ${destination.name}` : "Original destination"}
              </option>
            ))}
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
        {chosenDestination ? (
          <>
            Each event goes to <span className="mono break">{chosenDestination.url}</span> with its captured path and query.
          </>
        ) : target === "failed" ? (
          "Each event goes to the destinations whose delivery of it failed and is not resolved yet, with its captured path and query. A delivered replay resolves that failure."
        ) : target === "matched" ? (
          "Each event goes to every destination it matched, with its captured path and query."
        ) : destinations.length > 0 ? (
          "Each event goes to the custom URL as it is. A replay to a URL resolves no failed delivery."
        ) : (
          "This endpoint has no destination: replay to a custom URL, or add a destination in Settings below."
        )}
      </p>

      {job ? <BulkProgress job={job} label={chosen.label.toLowerCase()} endpointId={endpointId} /> : null}
      <FormError message={error} />
      {/* Only while asking: a closed dialog's name ("Replay events?") would stand beside the form's fields. */}
      {pending ? (
        <ConfirmBulkReplay
          pending={pending}
          label={SELECTIONS.find((option) => option.value === selection)!.label.toLowerCase().replace(/^all /, "")}
          onCancel={() => setPending(null)}
          onConfirm={(go) => void start(go.target, go.url)}
        />
      ) : null}
    </Card>
  );
}

/** Where a bulk replay sends each event, as the confirmation says it. */
function targetWords(target: Target, url: string, destination: BulkDestination | undefined): ReactNode {
  if (target === "custom") return <span className="mono break">{url}</span>;
  if (target === "failed") return "the destinations whose delivery of it failed (not resolved yet), with its captured path and query";
  if (target === "matched") return "every destination it matched, with its captured path and query";
  return (
    <>
      <span className="mono break">{destination?.url}</span> with its captured path and query
    </>
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
            {pending.count === 1 ? "It is" : "Each is"} sent again to {pending.where}. {pending.target === "failed" || pending.target === "matched" ? "The servers there receive" : "The server there receives"} real requests; the events themselves do not change.
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
