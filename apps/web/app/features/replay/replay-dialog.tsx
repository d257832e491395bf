import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { SubmitButton } from "../../components/form-fields";
import { useModalDialog } from "../../components/hooks";
import { FormError, Icon } from "../../components/ui";
import { errorMessage } from "../../lib/errors";
import { draftOverrides, sendBlocker } from "../../lib/replay-edit";
import { ENVIRONMENT_LABELS, parseLocalPort, REPLAY_ENVIRONMENTS, type ReplayChoices, type ReplayEnvironment, type TargetHint } from "../../lib/replay";
import { DestinationPicker, StagingDestinationField } from "./destination-picker";
import { LocalOutcome } from "./local-outcome";
import { useLocalPort, useRequestDraft } from "./replay-dialog-state";
import { ReplayOutcomes } from "./replay-outcome";
import { CustomUrlField, LocalPortField } from "./replay-target-fields";
import { RequestEditor } from "./request-editor";
import { resendWithoutCors, sendLocalReplay, type LocalSend } from "./send-local-replay";
import { sendReplay, type SentReplay } from "./send-replay";
import { TargetOptions } from "./target-options";
import "./replay-dialog.css";

/**
 * `sent`: what a server-side replay made (one attempt per destination); `local`: what a Local
 * replay did (rehook listen or this browser); `note`: the step under way while sending.
 */
type SendState = { sending: boolean; sent: SentReplay | null; error: string | null; local?: LocalSend; note?: string };

/** The first target that can be used: original, then staging, then local. */
function defaultEnvironment(hints: Record<ReplayEnvironment, TargetHint>): ReplayEnvironment {
  return REPLAY_ENVIRONMENTS.find((environment) => hints[environment].available) ?? "custom";
}

/**
 * The "Replay event" dialog: pick a target (with several destinations, which of them: the
 * failed ones first), optionally edit the request, send, see each answer.
 */
export function ReplayDialog({
  open,
  onClose,
  eventId,
  choices,
  onReplayed,
}: {
  open: boolean;
  onClose: () => void;
  eventId: string;
  choices: ReplayChoices;
  onReplayed: (sent: SentReplay) => void;
}) {
  const hints = choices.hints;
  const several = choices.destinations.length > 1;
  const ref = useModalDialog(open);
  const customRef = useRef<HTMLInputElement>(null);
  const titleId = useId();
  const descriptionId = useId();
  const [environment, setEnvironment] = useState<ReplayEnvironment>(() => defaultEnvironment(hints));
  const [customUrl, setCustomUrl] = useState("");
  const [customError, setCustomError] = useState<string | null>(null);
  const [state, setState] = useState<SendState>({ sending: false, sent: null, error: null });
  const [checked, setChecked] = useState<string[]>(choices.preselected);
  const [pickerError, setPickerError] = useState<string | null>(null);
  const [stagingDestination, setStagingDestination] = useState<string>(() => choices.preselected[0] ?? choices.destinations[0]?.id ?? "");
  const focusCustom = useRef(false);
  const portRef = useRef<HTMLInputElement>(null);
  const { portText, portError, setPortError, shownHints: portHints, typePort } = useLocalPort(hints);
  // With several destinations, staging's URL is the chosen destination's on the staging host.
  const stagingUrl = choices.destinations.find((destination) => destination.id === stagingDestination)?.stagingUrl ?? null;
  const shownHints = several && portHints.staging.available ? { ...portHints, staging: { ...portHints.staging, url: stagingUrl } } : portHints;
  const { original, draft, setDraft, loading: loadingEdit, startEditing } = useRequestDraft(eventId, (error) =>
    setState({ sending: false, sent: null, error: errorMessage(error) }),
  );
  // Edits go with server-side targets only: a local replay is sent by this browser as captured.
  const editing = draft !== null && original !== null && environment !== "local";

  // Closing ends the session: the next one keeps the target and URL, not the outcome.
  function close() {
    if (!state.sending) setState({ sending: false, sent: null, error: null });
    setCustomError(null);
    setPortError(null);
    setPickerError(null);
    onClose();
  }

  // Each opening starts from the destinations to replay now (a replay or a resolution since changes them).
  useEffect(() => {
    if (open) setChecked(choices.preselected);
    // Only on opening: the member's own choice stands while the dialog is open.
  }, [open]);

  // A target that became unavailable (the endpoint changed) is not kept selected.
  useEffect(() => {
    if (!hints[environment].available) setEnvironment(defaultEnvironment(hints));
  }, [hints, environment]);

  // The outcome may be below the fold on a phone: bring it into view.
  const outcomeRef = useRef<HTMLDivElement>(null);
  const errorRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (state.sent) outcomeRef.current?.scrollIntoView({ block: "nearest", behavior: "smooth" });
  }, [state.sent]);
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
    if (environment === "original" && several && checked.length === 0) {
      setPickerError("Choose at least one destination to send the event to.");
      return;
    }
    const invalidBody = editing ? sendBlocker(draft) : null;
    if (invalidBody) {
      setState({ sending: false, sent: null, error: invalidBody });
      return;
    }
    setCustomError(null);
    setPickerError(null);
    setState({ sending: true, sent: null, error: null });
    try {
      if (environment === "local") {
        // The port was checked above.
        if (!port.ok) throw new Error(port.error);
        const local = await sendLocalReplay(eventId, port.port, (note) => setState((current) => ({ ...current, note })));
        setState({ sending: false, sent: null, error: null, local });
        // A local attempt goes to no destination: it resolves nothing.
        if (local.attempt) onReplayed({ attempts: [local.attempt], eventResolved: null });
        return;
      }
      const overrides = editing ? draftOverrides(draft, original) : null;
      // One destination: that one (several: those checked); staging goes on the chosen one.
      const destinationIds = environment === "staging" ? [stagingDestination] : several ? checked : choices.destinations.map((destination) => destination.id);
      const sent = await sendReplay({ eventId, environment, customUrl: url, destinationIds, choices, overrides });
      setState({ sending: false, sent, error: null });
      onReplayed(sent);
    } catch (error) {
      setState({ sending: false, sent: null, error: errorMessage(error) });
    }
  }

  // After a refused preflight, when the user asks: the same request without CORS.
  async function sendWithoutCors() {
    const previous = state.local;
    if (state.sending || previous?.route !== "browser") return;
    setState({ sending: true, sent: null, error: null, note: "Sending from this browser without CORS…" });
    try {
      const local = await resendWithoutCors(previous, eventId);
      setState({ sending: false, sent: null, error: null, local });
      if (local.attempt) onReplayed({ attempts: [local.attempt], eventResolved: null });
    } catch (error) {
      setState({ sending: false, sent: null, error: errorMessage(error) });
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

        <TargetOptions
          hints={shownHints}
          selected={environment}
          disabled={state.sending}
          onSelect={(option) => {
            focusCustom.current = option === "custom";
            setEnvironment(option);
            setCustomError(null);
            setPortError(null);
            setPickerError(null);
            // An answer from another target would read as this one's.
            setState({ sending: false, sent: null, error: null });
          }}
        />

        {environment === "original" && several ? (
          <DestinationPicker
            destinations={choices.destinations}
            checked={checked}
            error={pickerError}
            disabled={state.sending}
            onChange={(next) => {
              setChecked(next);
              setPickerError(null);
              setState({ sending: false, sent: null, error: null });
            }}
          />
        ) : null}

        {environment === "staging" && several ? (
          <StagingDestinationField destinations={choices.destinations} value={stagingDestination} disabled={state.sending} onChange={setStagingDestination} />
        ) : null}

        {environment === "custom" ? (
          <CustomUrlField
            inputRef={customRef}
            value={customUrl}
            error={customError}
            disabled={state.sending}
            onChange={(event) => {
              setCustomUrl(event.target.value);
              setCustomError(null);
            }}
          />
        ) : null}

        {environment === "local" ? (
          <LocalPortField
            inputRef={portRef}
            value={portText}
            error={portError}
            disabled={state.sending}
            onChange={(event) => typePort(event.target.value)}
          />
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
              <span className="spinner" aria-hidden="true" /> {state.note ?? `Sending to ${ENVIRONMENT_LABELS[environment].toLowerCase()}…`}
            </p>
          ) : state.local ? (
            <LocalOutcome send={state.local} busy={state.sending} onSendWithoutCors={() => void sendWithoutCors()} />
          ) : state.sent ? (
            <ReplayOutcomes sent={state.sent} destinations={choices.destinations} />
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
            {state.sent || state.local ? "Send again" : "Send replay"}
          </SubmitButton>
        </div>
      </form>
    </dialog>
  );
}
