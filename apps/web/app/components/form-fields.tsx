import { Form } from "@remix-run/react";
import type { InputHTMLAttributes, ReactNode, Ref } from "react";
import { FormError, FormSuccess } from "./ui";

type InputProps = Omit<InputHTMLAttributes<HTMLInputElement>, "id" | "aria-describedby">;

/** The id of a field's hint, derived from the field's id. */
const hintId = (id: string, hint: ReactNode) => (hint ? `${id}-hint` : undefined);

/** The small print under a field, which the field points at with aria-describedby. */
function Hint({ id, children }: { id: string; children: ReactNode }) {
  return children ? (
    <small id={hintId(id, children)} className="hint">
      {children}
    </small>
  ) : null;
}

/** A labelled text input with an optional hint below it (linked with aria-describedby; its id is `${id}-hint`). */
export function TextField({
  id,
  label,
  hint,
  type = "text",
  inputRef,
  ...input
}: InputProps & { id: string; label: ReactNode; hint?: ReactNode; inputRef?: Ref<HTMLInputElement> }) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input id={id} ref={inputRef} type={type} aria-describedby={hintId(id, hint)} {...input} />
      <Hint id={id}>{hint}</Hint>
    </div>
  );
}

/**
 * A TextField for a URL: type="text" so the server, not the browser, says what is wrong with it,
 * with the URL keyboard on phones, and no spell checking or autofill.
 */
export function UrlField(props: Parameters<typeof TextField>[0]) {
  return <TextField inputMode="url" spellCheck={false} autoComplete="off" {...props} />;
}

/** A checkbox with its label, and an optional hint under the label (ids as in TextField). */
export function CheckboxField({ id, label, hint, boxed = false, ...input }: InputProps & { id: string; label: ReactNode; hint?: ReactNode; boxed?: boolean }) {
  return (
    <div className={`checkbox-field${boxed ? " boxed" : ""}`}>
      <input id={id} type="checkbox" aria-describedby={hintId(id, hint)} {...input} />
      <div>
        <label htmlFor={id}>{label}</label>
        <Hint id={id}>{hint}</Hint>
      </div>
    </div>
  );
}

/**
 * A submit button that is disabled, and says so, while its form is being sent. With `name`
 * and `value` it says which of a form's buttons sent it (intent=…).
 */
export function SubmitButton({
  busy,
  busyLabel,
  className = "button primary",
  icon,
  name,
  value,
  describedBy,
  locked,
  children,
}: {
  busy: boolean;
  busyLabel: string;
  className?: string;
  icon?: ReactNode;
  name?: string;
  value?: string;
  describedBy?: string;
  /** Why the member's role may not use it: the button is disabled, and says this on hover. */
  locked?: string;
  children: ReactNode;
}) {
  return (
    <button type="submit" className={className} disabled={busy || locked !== undefined} title={locked} name={name} value={value} aria-describedby={describedBy}>
      {icon}
      {busy ? busyLabel : children}
    </button>
  );
}

/** The end of a settings form: Save, "saved" next to it, and the error under it. */
export function SaveActions({ label, saving, saved, error }: { label: string; saving: boolean; saved: string | null; error: string | null | undefined }) {
  return (
    <>
      <div className="form-actions">
        <SubmitButton busy={saving} busyLabel="Saving…">
          {label}
        </SubmitButton>
        <FormSuccess message={saved} />
      </div>
      <FormError message={error} />
    </>
  );
}

/** A one-button form that posts an intent (and the id it acts on, and any other `fields`) to the route's action. */
export function IntentButton({
  intent,
  id,
  fields = {},
  preventScrollReset,
  formClassName,
  ...button
}: {
  intent: string;
  id?: string;
  fields?: Record<string, string>;
  preventScrollReset?: boolean;
  formClassName?: string;
  busy: boolean;
  busyLabel: string;
  className: string;
  locked?: string;
  children: ReactNode;
}) {
  return (
    <Form method="post" preventScrollReset={preventScrollReset} className={formClassName}>
      <input type="hidden" name="intent" value={intent} />
      {id ? <input type="hidden" name="id" value={id} /> : null}
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <SubmitButton {...button} />
    </Form>
  );
}
