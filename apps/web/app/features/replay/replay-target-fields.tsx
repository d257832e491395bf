import type { ChangeEvent, RefObject } from "react";
import { TextField, UrlField } from "../../components/form-fields";
import { useHydrated } from "../../components/hooks";
import { FormError } from "../../components/ui";

/** The Custom target's URL. */
export function CustomUrlField({
  inputRef,
  value,
  error,
  disabled,
  onChange,
}: {
  inputRef: RefObject<HTMLInputElement>;
  value: string;
  error: string | null;
  disabled: boolean;
  onChange: (event: ChangeEvent<HTMLInputElement>) => void;
}) {
  return (
    <div className="replay-custom">
      <UrlField
        id="replay-custom-url"
        inputRef={inputRef}
        label="Custom URL"
        hint="The event is sent to this URL as it is (the captured path is not appended)."
        name="customUrl"
        placeholder="https://staging.example.com/webhooks"
        value={value}
        onChange={onChange}
        aria-invalid={error ? true : undefined}
        disabled={disabled}
      />
      <FormError message={error} />
    </div>
  );
}

/** The Local target's port, and what the local server must allow for its answer to show. */
export function LocalPortField({
  inputRef,
  value,
  error,
  disabled,
  onChange,
}: {
  inputRef: RefObject<HTMLInputElement>;
  value: string;
  error: string | null;
  disabled: boolean;
  onChange: (event: ChangeEvent<HTMLInputElement>) => void;
}) {
  const hydrated = useHydrated();
  return (
    <>
      <div className="replay-local-port">
        <TextField
          id="replay-local-port"
          inputRef={inputRef}
          label="Local port"
          hint="The port your local server listens on. This browser remembers it."
          name="localPort"
          type="number"
          inputMode="numeric"
          min={1}
          max={65535}
          step={1}
          value={value}
          onChange={onChange}
          aria-invalid={error ? true : undefined}
          disabled={disabled}
        />
        <FormError message={error} />
      </div>
      <p className="note replay-note">
        Your browser sends this request to your own machine. To show the response here, the local server must allow CORS from{" "}
        <span className="mono">{hydrated ? window.location.origin : "this dashboard"}</span> (<span className="mono">Access-Control-Allow-Origin</span>, and the
        request’s headers in a preflight). Without it the replay is still sent, but recorded without a response.
      </p>
    </>
  );
}
