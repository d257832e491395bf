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

/** The Local target's port, and what the local server must allow for its answer to show. */
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
        Your browser sends this request to your own machine. To show the response here, the local server must allow CORS from{" "}
        <span className="mono">{hydrated ? window.location.origin : "this dashboard"}</span> (<span className="mono">Access-Control-Allow-Origin</span>, and the
        request’s headers in a preflight). Without it the replay is still sent, but recorded without a response.
      </p>
    </>
  );
}
