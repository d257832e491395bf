import { ENVIRONMENT_LABELS, REPLAY_ENVIRONMENTS, type ReplayEnvironment, type TargetHint } from "../../lib/replay";

/** The dialog's Target fieldset: one radio per environment, each with its URL or why it cannot be used. */
export function TargetOptions({
  hints,
  selected,
  disabled,
  onSelect,
}: {
  hints: Record<ReplayEnvironment, TargetHint>;
  selected: ReplayEnvironment;
  disabled: boolean;
  onSelect: (environment: ReplayEnvironment) => void;
}) {
  return (
    <fieldset className="fieldset" disabled={disabled}>
      <legend>Target</legend>
      <div className="target-options">
        {REPLAY_ENVIRONMENTS.map((option) => (
          <TargetOption key={option} environment={option} hint={hints[option]} checked={selected === option} onSelect={() => onSelect(option)} />
        ))}
      </div>
    </fieldset>
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
