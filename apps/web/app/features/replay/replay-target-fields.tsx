import type { ChangeEvent, ReactNode, RefObject } from "react";
import { TextField, UrlField } from "../../components/form-fields";
import { useHydrated } from "../../components/hooks";
import { FormError } from "../../components/ui";

/** What the dialog hands a target's input: its ref, text, error and change handler. */
interface TargetInputProps {
  inputRef: RefObject<HTMLInputElement>;
  value: string;
  error: string | null;
  disabled: boolean;
  onChange: (event: ChangeEvent<HTMLInputElement>) => void;
}

/** The field props every target input passes on; an error marks the input invalid. */
const fieldProps = ({ inputRef, value, error, disabled, onChange }: TargetInputProps) => ({
  inputRef,
  value,
  onChange,
  "aria-invalid": error ? true : undefined,
  disabled,
});

/** A target's field with its error under it. */
function TargetInput({ className, error, children }: { className: string; error: string | null; children: ReactNode }) {
  return (
    <div className={className}>
      {children}
      <FormError message={error} />
    </div>
  );
}

/** The Custom target's URL. */
export function CustomUrlField(props: TargetInputProps) {
  return (
    <TargetInput className="replay-custom" error={props.error}>
      <UrlField
        id="replay-custom-url"
        label="Custom URL"
        hint="The event is sent to this URL as it is (the captured path is not appended)."
        name="customUrl"
        placeholder="https://staging.example.com/webhooks"
        {...fieldProps(props)}
      />
    </TargetInput>
  );
}

/** The Local target's port, and how the replay gets there (rehook listen, or this browser and CORS). */
export function LocalPortField(props: TargetInputProps) {
  const hydrated = useHydrated();
  return (
    <>
      <TargetInput className="replay-local-port" error={props.error}>
        <TextField
          id="replay-local-port"
          label="Local port"
          hint="The port your local server listens on. This browser remembers it."
          name="localPort"
          type="number"
          inputMode="numeric"
          min={1}
          max={65535}
          step={1}
          {...fieldProps(props)}
        />
      </TargetInput>
      <p className="note replay-note">
        If your <span className="mono">rehook listen</span> for this endpoint is running, the replay goes through it, byte for byte, to its{" "}
        <span className="mono">--forward</span> URL (this port is then not used). Otherwise this browser sends it to your own machine: a request with a JSON
        body or custom headers is sent only if your local server allows CORS from <span className="mono">{hydrated ? window.location.origin : "this dashboard"}</span>{" "}
        (the browser asks it first); the dialog says exactly what happened.
      </p>
    </>
  );
}
