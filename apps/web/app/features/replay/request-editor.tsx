import { useId } from "react";
import { bodyByteCount, bodyError, EDIT_METHODS, formattedBody, shownBody, withTypedBody, type RequestDraft } from "../../lib/replay-edit";
import { CheckboxField } from "../../components/form-fields";
import { HeaderTable } from "../../components/header-table";
import { FormError } from "../../components/ui";

const MODE_LABELS: Record<RequestDraft["bodyMode"], string> = {
  json: "JSON, as captured",
  text: "text, as captured",
  base64: "binary, as base64",
};

/** "72 bytes" (a count the user compares with what their server logs: never rounded). */
function bytesText(count: number): string {
  return `${count.toLocaleString("en")} ${count === 1 ? "byte" : "bytes"}`;
}

/**
 * The replay dialog's "Edit request" form: method, path and query, header table and body. It only edits a
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
  const pathId = useId();
  const queryId = useId();
  const bodyId = useId();
  const bodyHintId = useId();
  const error = bodyError(draft);
  const formatted = formattedBody(draft);
  const bytes = bodyByteCount(draft);
  const unchanged = draft.body === original.body;
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

      <div className="replay-edit-target">
        <div className="field">
          <label htmlFor={pathId}>Path</label>
          <input
            id={pathId}
            className="mono"
            type="text"
            spellCheck={false}
            autoComplete="off"
            placeholder="/github/push"
            value={draft.path}
            onChange={(event) => onChange({ ...draft, path: event.target.value })}
          />
        </div>
        <div className="field">
          <label htmlFor={queryId}>Query</label>
          <input
            id={queryId}
            className="mono"
            type="text"
            spellCheck={false}
            autoComplete="off"
            placeholder="a=1&b=2"
            value={draft.query}
            onChange={(event) => onChange({ ...draft, query: event.target.value })}
          />
        </div>
        <small className="muted small replay-edit-target-hint">Appended to the target URL as forwarding appends the captured path and query.</small>
      </div>

      <HeaderTable
        caption="Headers (they replace the captured list; Host, Content-Length and hop-by-hop headers are set by Rehook)"
        rows={draft.headers}
        keyOf={(_header, index) => index}
        onEdit={setHeader}
        onRemove={(index) => onChange({ ...draft, headers: draft.headers.filter((_, i) => i !== index) })}
        onAdd={() => onChange({ ...draft, headers: [...draft.headers, { name: "", value: "" }] })}
      />

      <div className="replay-edit-body">
        <div className="replay-edit-body-head">
          <label htmlFor={bodyId}>Body ({MODE_LABELS[draft.bodyMode]})</label>
          {draft.bodyMode === "json" ? (
            <button
              type="button"
              className="button secondary small"
              disabled={formatted === null || formatted.body === draft.body}
              title="Lay the JSON out two spaces a level, every value as written (the formatted text is what is sent)"
              onClick={() => formatted && onChange(formatted)}
            >
              Format JSON
            </button>
          ) : null}
        </div>
        <textarea
          id={bodyId}
          className="mono"
          rows={10}
          spellCheck={false}
          value={shownBody(draft)}
          aria-invalid={error ? true : undefined}
          aria-describedby={bodyHintId}
          onChange={(event) => onChange(withTypedBody(draft, event.target.value))}
        />
        <small id={bodyHintId} className="muted small">
          <span data-testid="replay-body-bytes" data-bytes={bytes ?? undefined}>
            {bytes === null ? "Not valid base64" : `${bytesText(bytes)} will be sent`}
          </span>
          {unchanged
            ? ": the original bytes, unchanged."
            : `, as edited${draft.bodyMode === "base64" ? "" : " (only what you typed differs from the original)"}; the signature, if any, covers these bytes.`}
          {draft.bodyMode === "base64" && draft.binaryReason ? ` The body is shown as base64 because ${draft.binaryReason}.` : null}
          {draft.lineBreak === "\r\n" ? " Its line breaks are CRLF and stay so." : null}
        </small>
        {error && draft.bodyMode === "json" ? (
          <CheckboxField
            id={`${bodyId}-as-typed`}
            label="Send as typed"
            hint="Send this body even though it is not valid JSON, to see how the destination copes."
            name="sendAsTyped"
            checked={draft.sendAsTyped ?? false}
            onChange={(event) => onChange({ ...draft, sendAsTyped: event.currentTarget.checked })}
          />
        ) : null}
        {error && !(draft.bodyMode === "json" && draft.sendAsTyped) ? <FormError message={error} /> : null}
      </div>

      <button type="button" className="button secondary small" onClick={() => onChange(original)}>
        Reset to original
      </button>
    </fieldset>
  );
}
