import { Form } from "@remix-run/react";
import { useState, type ReactNode } from "react";
import { plural, toDate } from "../lib/format";
import { DELAY_UNITS, MAX_ATTEMPTS_LIMIT, MIN_INITIAL_DELAY_MS, policyChoice, RETRY_CHOICES, splitDelay, timeUntil, type RetryPolicy } from "../lib/retries";
import { Badge } from "./badges";
import { CheckboxField, SaveActions, SubmitButton, TextField } from "./form-fields";
import { useTickingNow } from "./hooks";
import { RelativeTime } from "./relative-time";
import "./delivery.css";

/** "Paused" next to an endpoint's health, with the reason on hover. */
export function PausedBadge({ reason }: { reason: string | null }) {
  return (
    <Badge tone="paused" data-testid="forwarding-paused-badge" title={reason ? `Forwarding paused: ${reason}` : "Forwarding paused"}>
      Forwarding paused
    </Badge>
  );
}

/** The endpoint page's banner while forwarding is paused: why, since when, and Resume. */
export function PausedBanner({
  reason,
  pausedAt,
  resuming,
  locked,
}: {
  reason: string | null;
  pausedAt: Date | string | null;
  resuming: boolean;
  /** Why the member's role may not resume it (the button is disabled, this on hover). */
  locked?: string;
}) {
  return (
    <div className="banner banner-warning paused-banner" data-testid="forwarding-paused">
      <span className="alert-icon" aria-hidden="true">
        !
      </span>
      <div className="paused-banner-content">
        <div className="banner-body">
          <p className="banner-title">
            Forwarding is paused
            {pausedAt ? (
              <span className="paused-since">
                {" "}
                · since <RelativeTime value={pausedAt} />
              </span>
            ) : null}
          </p>
          {reason ? <p data-testid="paused-reason">{reason}</p> : null}
          <p className="banner-next">New events are still captured: they wait as pending until you resume, then they are sent in order.</p>
        </div>
        <Form method="post" className="paused-banner-action" preventScrollReset>
          <input type="hidden" name="intent" value="resume" />
          <SubmitButton busy={resuming} busyLabel="Resuming…" className="button primary" locked={locked}>
            Resume forwarding
          </SubmitButton>
        </Form>
      </div>
    </div>
  );
}

export interface RetrySettings {
  retryPolicy: RetryPolicy | null;
  pauseAfterFailures: number | null;
  /** Failed attempts in a row so far (what pausing counts). */
  consecutiveFailures: number;
}

/** The Retries form of an endpoint's page: a preset or custom policy, and pausing after repeated failures. */
export function RetrySettingsForm({
  settings,
  hasDestination,
  saving,
  saved,
  error,
}: {
  settings: RetrySettings;
  hasDestination: boolean;
  saving: boolean;
  saved: boolean;
  error: string | null;
}) {
  return (
    <Form method="post" className="form-stack retry-form" noValidate preventScrollReset>
      <input type="hidden" name="intent" value="retries" />
      {!hasDestination ? <p className="note">This endpoint only captures: retries apply once it has a destination URL.</p> : null}
      <RetryPolicyFields settings={settings} />
      <SaveActions label="Save retries" saving={saving} saved={saved ? "Retries saved" : null} error={error} />
    </Form>
  );
}

/**
 * The retry policy's inputs (a preset or custom attempts and delays) and pausing after
 * repeated failures, inside a form that lib/retries.ts's readRetryForm reads. `idPrefix`
 * keeps the ids apart when several forms on a page hold them.
 */
export function RetryPolicyFields({ settings, idPrefix = "retry" }: { settings: RetrySettings; idPrefix?: string }) {
  const [choice, setChoice] = useState(() => policyChoice(settings.retryPolicy));
  const [pausing, setPausing] = useState(settings.pauseAfterFailures !== null);
  // Custom starts from the stored policy, or from the first preset with retries.
  const base = settings.retryPolicy ?? RETRY_CHOICES.find((preset) => preset.policy)?.policy ?? { maxAttempts: 5, initialDelayMs: 240_000, maxDelayMs: 1_920_000 };
  return (
    <>
      <fieldset className="fieldset">
        <legend>Automatic retries</legend>
        <div className="target-options retry-options">
          {[...RETRY_CHOICES, { id: "custom", label: "Custom", hint: "Your own number of attempts and delays." }].map((option) => (
            <label key={option.id} className="target-option" data-testid="retry-choice">
              <input type="radio" name="retryChoice" value={option.id} checked={choice === option.id} onChange={() => setChoice(option.id)} />
              <span className="target-option-text">
                <span className="target-option-label">{option.label}</span>
                <span className="target-option-hint">{option.hint}</span>
              </span>
            </label>
          ))}
        </div>
      </fieldset>
      {choice === "custom" ? (
        <div className="retry-custom field-box" data-testid="retry-custom">
          <TextField
            id={`${idPrefix}-max-attempts`}
            label="Max attempts"
            hint={`The first delivery counts as one: 1 to ${MAX_ATTEMPTS_LIMIT}.`}
            name="maxAttempts"
            inputMode="numeric"
            autoComplete="off"
            defaultValue={String(base.maxAttempts)}
          />
          <DelayField
            id={`${idPrefix}-initial-delay`}
            label="First delay"
            hint={`Before the second attempt; at least ${MIN_INITIAL_DELAY_MS} ms. Doubles each time.`}
            name="initialDelay"
            ms={base.initialDelayMs}
          />
          <DelayField id={`${idPrefix}-max-delay`} label="Longest delay" hint="The wait between attempts never grows past this." name="maxDelay" ms={base.maxDelayMs} />
        </div>
      ) : null}
      <div className="pause-setting">
        <CheckboxField
          id={`${idPrefix}-pause`}
          label="Pause forwarding after repeated failures"
          hint="Stops sending to a destination that keeps failing. New events wait as pending until you resume."
          name="pauseEnabled"
          checked={pausing}
          onChange={(event) => setPausing(event.currentTarget.checked)}
        />
        {pausing ? (
          <div className="pause-count">
            <TextField
              id={`${idPrefix}-pause-after`}
              label="Consecutive failed attempts"
              hint={
                <>
                  Pause forwarding after this many failed attempts in a row, across events.
                  {settings.consecutiveFailures > 0 ? ` Right now: ${plural(settings.consecutiveFailures, "consecutive failed attempt")}.` : ""}
                </>
              }
              name="pauseAfterFailures"
              inputMode="numeric"
              autoComplete="off"
              defaultValue={String(settings.pauseAfterFailures ?? 10)}
            />
          </div>
        ) : null}
      </div>
    </>
  );
}

/** A delay: a number and its unit. */
function DelayField({ id, label, hint, name, ms }: { id: string; label: string; hint: string; name: string; ms: number }) {
  const initial = splitDelay(ms);
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <div className="delay-input">
        <input id={id} type="text" name={name} inputMode="decimal" autoComplete="off" defaultValue={String(initial.value)} aria-describedby={`${id}-hint`} />
        <select name={`${name}Unit`} defaultValue={initial.unit} aria-label={`${label} unit`}>
          {DELAY_UNITS.map((unit) => (
            <option key={unit.id} value={unit.id}>
              {unit.label}
            </option>
          ))}
        </select>
      </div>
      <small id={`${id}-hint`} className="hint">
        {hint}
      </small>
    </div>
  );
}

/** What a waiting attempt says instead of its due time while its destination is paused (the due time means nothing then). */
export const PAUSED_ATTEMPT_TEXT = "Paused: sent once its destination is resumed";

/** "in 28s", ticking every second (or every `tickMs`). */
export function TimeUntil({ value, className, tickMs = 1000 }: { value: Date | string; className?: string; tickMs?: number }) {
  const date = toDate(value);
  const now = useTickingNow(tickMs);
  return (
    <time dateTime={Number.isNaN(date.getTime()) ? undefined : date.toISOString()} className={className} suppressHydrationWarning>
      {timeUntil(date, now)}
    </time>
  );
}

/** An attempt's outcome as a badge: delivered or failed. */
export function OutcomeBadge({ outcome }: { outcome: string }) {
  return (
    <Badge tone={outcome === "delivered" ? "delivered" : outcome === "failed" ? "failed" : "neutral"} data-outcome={outcome}>
      {outcome === "delivered" ? "Delivered" : outcome === "failed" ? "Failed" : outcome}
    </Badge>
  );
}

/** A labelled figure in an attempt row. */
export function AttemptFact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <span className="attempt-fact">
      <span className="attempt-fact-label">{label}</span> {children}
    </span>
  );
}
