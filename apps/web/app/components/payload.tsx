import { useMemo } from "react";
import { formatBytes, jsonTokens } from "../lib/format";
import { DataTable } from "./data-table";
import "./payload.css";

/** What the server sends for a stored body (PayloadView without the parsed value). */
export type PayloadData = { kind: "json"; pretty: string } | { kind: "text"; text: string } | { kind: "binary"; hex: string; size: number };

/** Past this size JSON is shown without colours: tens of thousands of spans make the page sluggish. */
const HIGHLIGHT_LIMIT = 200_000;

/** JSON text with its tokens coloured (plain past HIGHLIGHT_LIMIT). */
export function HighlightedJson({ text }: { text: string }) {
  const tokens = useMemo(() => (text.length > HIGHLIGHT_LIMIT ? null : jsonTokens(text)), [text]);
  if (!tokens) return <>{text}</>;
  return (
    <>
      {tokens.map((token, index) =>
        token.kind === "whitespace" ? (
          token.text
        ) : (
          <span key={index} className={`tok-${token.kind} ${token.kind}`}>
            {token.text}
          </span>
        ),
      )}
    </>
  );
}

/** A body: highlighted JSON, text as-is, or a hex dump with its size. */
export function PayloadBlock({ payload, testId = "payload", label }: { payload: PayloadData; testId?: string; label: string }) {
  if (payload.kind === "binary") {
    return (
      <div className="payload">
        <p className="payload-meta">
          <span className="chip">Binary</span> {payload.size < 1024 ? `${payload.size} bytes` : `${formatBytes(payload.size)} (${payload.size.toLocaleString("en-US")} bytes)`}, shown as a hex dump
        </p>
        <pre className="code code-block hexdump" data-testid={testId} data-kind="binary" tabIndex={0} aria-label={`${label} (hex dump)`}>
          {payload.hex}
        </pre>
      </div>
    );
  }
  if (payload.kind === "text") {
    const empty = payload.text.length === 0;
    return (
      <div className="payload">
        <pre className={`code code-block${empty ? " is-empty" : ""}`} data-testid={testId} data-kind="text" tabIndex={0} aria-label={label}>
          {empty ? "" : payload.text}
        </pre>
        {empty ? <p className="muted small">The body is empty.</p> : null}
      </div>
    );
  }
  return (
    <div className="payload">
      <pre className="code code-block json" data-testid={testId} data-kind="json" tabIndex={0} aria-label={`${label} (JSON)`}>
        <HighlightedJson text={payload.pretty} />
      </pre>
    </div>
  );
}

/** The text a "Copy" button puts on the clipboard for a body shown with PayloadBlock (a response, a replay's answer). */
export function payloadText(payload: PayloadData): string {
  return payload.kind === "json" ? payload.pretty : payload.kind === "text" ? payload.text : payload.hex;
}

/** Request or response headers in their stored order, duplicates kept. */
export function HeadersTable({ headers, testId = "header-row", caption }: { headers: Array<[string, string]>; testId?: string; caption: string }) {
  if (headers.length === 0) return <p className="muted">No headers.</p>;
  return (
    <div className="table-wrap">
      <DataTable className="headers-table stacks-on-phone" caption={caption} columns={["Name", "Value"]}>
        {headers.map(([name, value], index) => (
          <tr key={index} data-testid={testId}>
            <td className="mono header-name">{name}</td>
            <td className="mono header-value">{value}</td>
          </tr>
        ))}
      </DataTable>
    </div>
  );
}
