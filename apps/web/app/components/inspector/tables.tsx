import { formRows, queryRows, type FormRows } from "@rehook/core/browser";
import { useMemo } from "react";
import { formatBytes } from "../../lib/format";
import { JsonTree } from "./json-tree";
import type { MultipartData } from "./model";

function Rows({ rows, caption, testId }: { rows: FormRows; caption: string; testId: string }) {
  if (rows.rows.length === 0) return <p className="muted small">No fields.</p>;
  return (
    <>
      <div className="table-wrap inspector-table-wrap">
        <table className="table inspector-table" data-testid={testId}>
          <caption className="sr-only">{caption}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Value</th>
            </tr>
          </thead>
          <tbody>
            {rows.rows.map((row, index) => (
              <tr key={index} data-testid={`${testId}-row`}>
                <td className="mono inspector-name">{row.name}</td>
                <td className="mono inspector-value">
                  {row.json !== undefined ? (
                    <div className="inspector-json-field">
                      <span className="chip">JSON</span>
                      <JsonTree value={row.json} label={`${row.name} (JSON)`} searchable={false} testId="form-json" />
                    </div>
                  ) : row.value === "" ? (
                    <span className="muted">empty</span>
                  ) : (
                    row.value
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {rows.omitted > 0 ? <p className="muted small">{rows.omitted.toLocaleString("en-US")} more fields are not shown; Raw has them all.</p> : null}
    </>
  );
}

/** An application/x-www-form-urlencoded body as a table, JSON values (Slack's payload=) expanded as trees. */
export function FormTable({ text }: { text: string }) {
  const rows = useMemo(() => formRows(text), [text]);
  return <Rows rows={rows} caption="Form fields, in the order they arrived" testId="form-table" />;
}

/** The request's query string as a table. */
export function QueryTable({ query }: { query: string }) {
  const rows = useMemo(() => queryRows(query), [query]);
  return (
    <section className="inspector-query" aria-label="Query string">
      <h3 className="subheading">Query string</h3>
      <Rows rows={rows} caption="Query string parameters, in order" testId="query-table" />
    </section>
  );
}

/** The parts of a multipart body, one card each. */
export function MultipartParts({ listing, partial }: { listing: MultipartData; partial: boolean }) {
  return (
    <div className="inspector-parts-wrap">
      <ol className="inspector-parts" data-testid="multipart-parts">
        {listing.parts.map((part, index) => (
          <li key={index} className="inspector-part" data-testid="multipart-part">
            <div className="inspector-part-head">
              <span className="inspector-part-index">#{index + 1}</span>
              <span className="mono inspector-part-name">{part.name ?? <span className="muted">no name</span>}</span>
              {part.filename !== null ? <span className="mono inspector-part-file">{part.filename}</span> : null}
              <span className="chip">{part.contentType ?? "text/plain"}</span>
              <span className="muted small">
                {part.size < 1024 ? `${part.size} bytes` : formatBytes(part.size)}
                {part.complete ? "" : partial ? " so far (cut with the preview)" : " (incomplete)"}
              </span>
            </div>
            {part.preview === null ? (
              <p className="muted small">Binary content.</p>
            ) : part.preview === "" ? (
              <p className="muted small">Empty.</p>
            ) : (
              <pre className="code-block inspector-part-preview">
                {part.preview}
                {part.previewCut ? "…" : ""}
              </pre>
            )}
          </li>
        ))}
      </ol>
      {listing.omitted > 0 ? <p className="muted small">{listing.omitted.toLocaleString("en-US")} more parts are not listed.</p> : null}
      {!listing.closed && !partial ? <p className="note">The body ends without the closing boundary (--{listing.boundary}--).</p> : null}
    </div>
  );
}
