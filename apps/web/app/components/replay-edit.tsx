import { useId } from "react";
import { bodyError, EDIT_METHODS, type RequestDraft } from "../lib/replay-edit";
import { FormError } from "./ui";

const MODE_LABELS: Record<RequestDraft["bodyMode"], string> = {
  json: "JSON, pretty-printed",
  text: "text",
  base64: "binary, as base64",
};

/**
 * The replay dialog's "Edit request" form: method, header table and body. It only edits a
 * draft; the dialog sends what differs from `original` as the replay's overrides.
 */
export function RequestEditor({
  draft,
  original,
  disabled,
  onChange,
}: {
  draft: RequestDraft;
  original: RequestDraft;
  disabled: boolean;
  onChange: (draft: RequestDraft) => void;
}) {
  const methodId = useId();
  const bodyId = useId();
  const bodyHintId = useId();
  const error = bodyError(draft);
  const methods = EDIT_METHODS.includes(original.method as never) ? [...EDIT_METHODS] : [original.method, ...EDIT_METHODS];
  const setHeader = (index: number, part: "name" | "value", text: string) =>
    onChange({ ...draft, headers: draft.headers.map((header, i) => (i === index ? { ...header, [part]: text } : header)) });

  return (
    <fieldset className="fieldset replay-edit" disabled={disabled}>
      <legend>Edited request</legend>
      <div className="replay-edit-method">
        <label htmlFor={methodId}>Method</label>
        <select id={methodId} value={draft.method} onChange={(event) => onChange({ ...draft, method: event.target.value })}>
          {methods.map((method) => (
            <option key={method} value={method}>
              {method}
            </option>
          ))}
        </select>
      </div>

      <table className="replay-edit-headers">
        <caption className="muted small">Headers (they replace the captured list; Host, Content-Length and hop-by-hop headers are set by Rehook)</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Value</th>
            <th scope="col" aria-label="Remove" />
          </tr>
        </thead>
        <tbody>
          {draft.headers.map((header, index) => (
            <tr key={index}>
              <td>
                <input className="mono" aria-label={`Header ${index + 1} name`} value={header.name} onChange={(event) => setHeader(index, "name", event.target.value)} />
              </td>
              <td>
                <input className="mono" aria-label={`Header ${index + 1} value`} value={header.value} onChange={(event) => setHeader(index, "value", event.target.value)} />
              </td>
              <td>
                <button
                  type="button"
                  className="button secondary small"
                  aria-label={`Remove header ${header.name || index + 1}`}
                  onClick={() => onChange({ ...draft, headers: draft.headers.filter((_, i) => i !== index) })}
                >
                  Remove
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <button type="button" className="button secondary small" onClick={() => onChange({ ...draft, headers: [...draft.headers, { name: "", value: "" }] })}>
        Add header
      </button>

      <div className="replay-edit-body">
        <label htmlFor={bodyId}>Body ({MODE_LABELS[draft.bodyMode]})</label>
        <textarea
          id={bodyId}
          className="mono"
          rows={10}
          spellCheck={false}
          value={draft.body}
          aria-invalid={error ? true : undefined}
          aria-describedby={bodyHintId}
          onChange={(event) => onChange({ ...draft, body: event.target.value })}
        />
        <small id={bodyHintId} className="muted small">
          {draft.body === original.body ? "Unchanged: the original bytes are sent." : "Sent as edited; the signature, if any, covers these bytes."}
        </small>
        <FormError message={error} />
      </div>

      <button type="button" className="button secondary small" onClick={() => onChange(original)}>
        Reset to original
      </button>
    </fieldset>
  );
}
