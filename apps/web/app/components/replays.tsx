import { Link } from "@remix-run/react";
import { useEffect, useId, useMemo, useRef, useState, type FormEvent } from "react";
import { errorMessage } from "../lib/errors";
import { formatLatency } from "../lib/format";
import {
  DEFAULT_LOCAL_PORT,
  ENVIRONMENT_LABELS,
  environmentLabel,
  parseLocalPort,
  performLocalReplay,
  previewBody,
  rememberedLocalPort,
  rememberLocalPort,
  REPLAY_ENVIRONMENTS,
  withLocalPort,
  type ReplayAttempt,
  type ReplayEnvironment,
  type ReplayRow,
  type TargetHint,
} from "../lib/replay";
import { draftOverrides, initialDraft, bodyError, type RequestDraft } from "../lib/replay-edit";
import { trpc } from "../lib/trpc.client";
import { Badge, HttpStatus, StatusBadge } from "./badges";
import { RequestEditor } from "./replay-edit";
import { useHydrated, useModalDialog, useRowOpener } from "./hooks";
import { DataTable, EndpointCell, LatencyCell, Truncated, type Column } from "./data-table";
import { SubmitButton, TextField, UrlField } from "./form-fields";
import { PayloadBlock } from "./payload";
import { RelativeTime } from "./relative-time";
import { Alert, FormError, Icon } from "./ui";

/** A replay's target environment as a small chip ("Staging"). */
export function EnvironmentChip({ environment }: { environment: string }) {
  return <span className={`chip env-chip env-${environment}`}>{environmentLabel(environment)}</span>;
}

/**
 * Replay attempts, newest first: one per row, each opening its attempt page. `withEvent`
 * adds the endpoint and event columns (the Replays page; an event's history has no need).
 */
export function ReplayTable({ rows, withEvent, caption }: { rows: ReplayRow[]; withEvent: boolean; caption: string }) {
  const open = useRowOpener();
  const columns: Column[] = [
    "Time",
    ...(withEvent ? ["Endpoint", "Event type"] : []),
    "Environment",
    "Target URL",
    "Status",
    "Response",
    { label: "Latency", className: "num" },
  ];
  return (
    <DataTable className={`replays-table${withEvent ? "" : " is-compact"}`} caption={caption} columns={columns}>
      {rows.map((row) => (
        <tr key={row.id} data-testid="replay-row" data-replay-id={row.id} data-status={row.status} className="replay-row" onClick={(event) => open(event, `/replays/${row.id}`)}>
          <td data-label="Time" className="cell-time">
            <Link to={`/replays/${row.id}`} className="replay-link" prefetch="intent">
              <span className="sr-only">Replayed </span>
              <RelativeTime value={row.replayedAt} />
            </Link>
          </td>
          {withEvent ? (
            <>
              <EndpointCell name={row.endpointName} />
              <td data-label="Event type" className="cell-type">
                <Link to={`/events/${row.eventId}`} className={`event-link${row.eventType === "unknown" ? " is-unknown" : ""}`} title={`Open the event ${row.eventType}`}>
                  {row.eventType}
                </Link>
              </td>
            </>
          ) : null}
          <td data-label="Environment" className="cell-env">
            <EnvironmentChip environment={row.environment} />
          </td>
          <td data-label="Target URL" className="cell-url">
            <Truncated text={row.destinationUrl} className="mono" />
          </td>
          <td data-label="Status" className="cell-status">
            <StatusBadge status={row.status} title={row.error ?? undefined} />
            {row.modified ? <EditedBadge /> : null}
          </td>
          <td data-label="Response" className="cell-response">
            {row.responseStatus !== null ? <HttpStatus code={row.responseStatus} /> : <span className="muted small">No response</span>}
          </td>
          <LatencyCell ms={row.latencyMs} />
        </tr>
      ))}
    </DataTable>
  );
}

/** Marks an attempt sent with edits (edit-and-replay). */
export function EditedBadge() {
  return (
    <Badge tone="neutral" dot={false} data-testid="replay-edited" title="Sent with an edited method, headers or body">
      Edited
    </Badge>
  );
}

/** One attempt's outcome, as the replay dialog shows it. */
export function ReplayOutcome({ attempt }: { attempt: ReplayAttempt }) {
  const preview = useMemo(() => (attempt.response_body === null ? null : previewBody(attempt.response_body)), [attempt.response_body]);
  return (
    <div className="replay-outcome" data-testid="replay-result" data-status={attempt.status}>
      <div className="response-summary">
        <StatusBadge status={attempt.status} />
        {attempt.response_status !== null ? <HttpStatus code={attempt.response_status} /> : null}
        {attempt.modified ? <EditedBadge /> : null}
        <span className="muted">
          Latency <strong className="fg">{formatLatency(attempt.latency_ms)}</strong>
        </span>
        <Link to={`/replays/${attempt.id}`} className="text-link replay-outcome-link">
          Open attempt <Icon name="arrow-right" />
        </Link>
      </div>
      <p className="muted small">
        {environmentLabel(attempt.environment)} · sent to{" "}
        <span className="mono break fg" data-testid="replay-destination">
          {attempt.destination_url}
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
      ) : attempt.response_status !== null ? (
        <p className="muted small">The target sent no body.</p>
      ) : null}
    </div>
  );
}

type SendState = { sending: boolean; attempt: ReplayAttempt | null; error: string | null };

/** The first target that can be used: original, then staging, then local. */
function defaultEnvironment(hints: Record<ReplayEnvironment, TargetHint>): ReplayEnvironment {
  return REPLAY_ENVIRONMENTS.find((environment) => hints[environment].available) ?? "custom";
}

/**
 * The "Replay event" dialog: pick a target, send, see the answer. Server-side targets go
 * through replays.create; a local replay is sent from this browser and recorded afterwards.
 */
export function ReplayDialog({
  open,
  onClose,
  eventId,
  hints,
  onReplayed,
}: {
  open: boolean;
  onClose: () => void;
  eventId: string;
  hints: Record<ReplayEnvironment, TargetHint>;
  onReplayed: (attempt: ReplayAttempt) => void;
}) {
  const ref = useModalDialog(open);
  const customRef = useRef<HTMLInputElement>(null);
  const titleId = useId();
  const descriptionId = useId();
  const [environment, setEnvironment] = useState<ReplayEnvironment>(() => defaultEnvironment(hints));
  const [customUrl, setCustomUrl] = useState("");
  const [customError, setCustomError] = useState<string | null>(null);
  const [state, setState] = useState<SendState>({ sending: false, attempt: null, error: null });
  const focusCustom = useRef(false);
  const hydrated = useHydrated();
  const portRef = useRef<HTMLInputElement>(null);
  // The local server's port as typed, and the last valid one (what the Local option shows).
  const [portText, setPortText] = useState(String(DEFAULT_LOCAL_PORT));
  const [localPort, setLocalPort] = useState(DEFAULT_LOCAL_PORT);
  const [portError, setPortError] = useState<string | null>(null);
  // "Edit request": the original as loaded once, and the draft being edited (null: not editing).
  const [original, setOriginal] = useState<RequestDraft | null>(null);
  const [draft, setDraft] = useState<RequestDraft | null>(null);
  const [loadingEdit, setLoadingEdit] = useState(false);

  async function startEditing() {
    if (original) return setDraft(draft ?? original);
    setLoadingEdit(true);
    try {
      const first = initialDraft(await trpc().replays.editSource.query({ eventId }));
      setOriginal(first);
      setDraft(first);
    } catch (error) {
      setState({ sending: false, attempt: null, error: errorMessage(error) });
    } finally {
      setLoadingEdit(false);
    }
  }
  // Edits go with server-side targets only: a local replay is sent by this browser as captured.
  const editing = draft !== null && original !== null && environment !== "local";

  // localStorage exists only in the browser: the remembered port replaces 3000 after hydration.
  useEffect(() => {
    const port = rememberedLocalPort();
    setLocalPort(port);
    setPortText(String(port));
  }, []);

  const shownHints = useMemo(() => {
    const local = hints.local;
    return local.available && local.url ? { ...hints, local: { ...local, url: withLocalPort(local.url, localPort) } } : hints;
  }, [hints, localPort]);

  // Closing ends the session: the next one keeps the target and URL, not the outcome.
  function close() {
    if (!state.sending) setState({ sending: false, attempt: null, error: null });
    setCustomError(null);
    setPortError(null);
    onClose();
  }

  // A target that became unavailable (the endpoint changed) is not kept selected.
  useEffect(() => {
    if (!hints[environment].available) setEnvironment(defaultEnvironment(hints));
  }, [hints, environment]);

  // The outcome may be below the fold on a phone: bring it into view.
  const outcomeRef = useRef<HTMLDivElement>(null);
  const errorRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (state.attempt) outcomeRef.current?.scrollIntoView({ block: "nearest", behavior: "smooth" });
  }, [state.attempt]);
  useEffect(() => {
    if (state.error) errorRef.current?.scrollIntoView({ block: "nearest", behavior: "smooth" });
  }, [state.error]);

  useEffect(() => {
    if (environment === "custom" && focusCustom.current) customRef.current?.focus();
    focusCustom.current = false;
  }, [environment]);

  async function send(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (state.sending) return;
    const url = customUrl.trim();
    if (environment === "custom" && url === "") {
      setCustomError("Enter the URL to send the event to.");
      customRef.current?.focus();
      return;
    }
    const port = parseLocalPort(portText);
    if (environment === "local" && !port.ok) {
      setPortError(port.error);
      portRef.current?.focus();
      return;
    }
    const invalidBody = editing ? bodyError(draft) : null;
    if (invalidBody) {
      setState({ sending: false, attempt: null, error: invalidBody });
      return;
    }
    setCustomError(null);
    setState({ sending: true, attempt: null, error: null });
    try {
      let attempt: ReplayAttempt;
      if (environment === "local" && port.ok) {
        rememberLocalPort(port.port);
        const request = await trpc().replays.localRequest.query({ eventId, localPort: port.port });
        const result = await performLocalReplay(request);
        attempt = await trpc().replays.recordLocal.mutate({ eventId, localPort: port.port, result });
      } else {
        const overrides = editing ? draftOverrides(draft, original) : null;
        attempt = await trpc().replays.create.mutate({ eventId, environment, customUrl: environment === "custom" ? url : null, ...(overrides ? { overrides } : {}) });
      }
      setState({ sending: false, attempt, error: null });
      onReplayed(attempt);
    } catch (error) {
      setState({ sending: false, attempt: null, error: errorMessage(error) });
    }
  }

  return (
    <dialog
      ref={ref}
      className="dialog replay-dialog"
      aria-labelledby={titleId}
      aria-describedby={descriptionId}
      onClose={close}
      onCancel={close}
      onClick={(event) => {
        if (event.target === ref.current && !state.sending) close();
      }}
    >
      <form className="dialog-content replay-form" onSubmit={send} noValidate>
        <h2 id={titleId} className="dialog-title">
          Replay event
        </h2>
        <p id={descriptionId} className="dialog-body replay-intro">
          {editing
            ? "Sends the request as edited below and records the answer. The event itself does not change."
            : "Sends the stored request again — same method, headers and body bytes — and records the answer. The event itself does not change."}
        </p>

        <fieldset className="fieldset" disabled={state.sending}>
          <legend>Target</legend>
          <div className="target-options">
            {REPLAY_ENVIRONMENTS.map((option) => (
              <TargetOption
                key={option}
                environment={option}
                hint={shownHints[option]}
                checked={environment === option}
                onSelect={() => {
                  focusCustom.current = option === "custom";
                  setEnvironment(option);
                  setCustomError(null);
                  setPortError(null);
                  // An answer from another target would read as this one's.
                  setState({ sending: false, attempt: null, error: null });
                }}
              />
            ))}
          </div>
        </fieldset>

        {environment === "custom" ? (
          <div className="replay-custom">
            <UrlField
              id="replay-custom-url"
              inputRef={customRef}
              label="Custom URL"
              hint="The event is sent to this URL as it is (the captured path is not appended)."
              name="customUrl"
              placeholder="https://staging.example.com/webhooks"
              value={customUrl}
              onChange={(event) => {
                setCustomUrl(event.target.value);
                setCustomError(null);
              }}
              aria-invalid={customError ? true : undefined}
              disabled={state.sending}
            />
            <FormError message={customError} />
          </div>
        ) : null}

        {environment === "local" ? (
          <div className="replay-local-port">
            <TextField
              id="replay-local-port"
              inputRef={portRef}
              label="Local port"
              hint="The port your local server listens on. This browser remembers it."
              name="localPort"
              type="number"
              inputMode="numeric"
              min={1}
              max={65535}
              step={1}
              value={portText}
              onChange={(event) => {
                setPortText(event.target.value);
                const port = parseLocalPort(event.target.value);
                if (port.ok) setLocalPort(port.port);
                setPortError(null);
              }}
              aria-invalid={portError ? true : undefined}
              disabled={state.sending}
            />
            <FormError message={portError} />
          </div>
        ) : null}

        {environment === "local" ? (
          <p className="note replay-note">
            Your browser sends this request to your own machine. To show the response here, the local server must allow CORS from{" "}
            <span className="mono">{hydrated ? window.location.origin : "this dashboard"}</span> (
            <span className="mono">Access-Control-Allow-Origin</span>, and the request’s headers in a preflight). Without it the replay is still sent, but
            recorded without a response.
          </p>
        ) : null}

        {environment !== "local" ? (
          <div className="replay-edit-toggle">
            <button
              type="button"
              className="button secondary small"
              aria-expanded={editing}
              disabled={state.sending || loadingEdit}
              onClick={() => (editing ? setDraft(null) : void startEditing())}
            >
              {editing ? "Send without edits" : loadingEdit ? "Loading…" : "Edit request"}
            </button>
          </div>
        ) : null}
        {editing ? <RequestEditor draft={draft} original={original} disabled={state.sending} onChange={setDraft} /> : null}

        <div className="replay-result-area" aria-live="polite" ref={outcomeRef}>
          {state.sending ? (
            <p className="replay-sending muted">
              <span className="spinner" aria-hidden="true" /> Sending to {ENVIRONMENT_LABELS[environment].toLowerCase()}…
            </p>
          ) : state.attempt ? (
            <ReplayOutcome attempt={state.attempt} />
          ) : null}
        </div>
        <div ref={errorRef} className="replay-error-area">
          <FormError message={state.error} />
        </div>

        <div className="dialog-actions">
          <button type="button" className="button secondary" onClick={close}>
            Close
          </button>
          <SubmitButton busy={state.sending} busyLabel="Sending…" icon={<Icon name="send" />}>
            {state.attempt ? "Send again" : "Send replay"}
          </SubmitButton>
        </div>
      </form>
    </dialog>
  );
}

function TargetOption({ environment, hint, checked, onSelect }: { environment: ReplayEnvironment; hint: TargetHint; checked: boolean; onSelect: () => void }) {
  const id = `replay-target-${environment}`;
  return (
    <label className={`target-option${hint.available ? "" : " is-unavailable"}`} htmlFor={id}>
      <input
        id={id}
        type="radio"
        name="environment"
        value={environment}
        checked={checked}
        disabled={!hint.available}
        onChange={onSelect}
        aria-labelledby={`${id}-label`}
        aria-describedby={`${id}-hint`}
      />
      <span className="target-option-text">
        <span id={`${id}-label`} className="target-option-label">
          {ENVIRONMENT_LABELS[environment]}
        </span>
        <small id={`${id}-hint`} className="target-option-hint">
          {hint.available ? (
            hint.url ? (
              <span className="mono break" title={hint.note}>
                {hint.url}
              </span>
            ) : (
              hint.note
            )
          ) : (
            hint.reason
          )}
        </small>
      </span>
    </label>
  );
}
