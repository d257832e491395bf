import { classifyText, curlCommand, prettyJson, prettyXml } from "@rehook/core/browser";
import { useMemo, useState } from "react";
import { formatBytes } from "../../lib/format";
import { CopyButton } from "../copy-button";
import { useHydrated } from "../hooks";
import { JsonTree } from "./json-tree";
import { bodyWeight, hexOf, kindLabel, subjectOf, VIEW_LABELS, viewsOf, type BodyData, type BodyViewData, type Subject, type ViewId } from "./model";
import { NumberedText } from "./numbered-text";
import { FormTable, MultipartParts, QueryTable } from "./tables";
import "./inspector.css";

export type { BodyData } from "./model";

/**
 * Past this many characters of body the server renders the toolbar only and the browser
 * the body, after hydration: the text then crosses the wire once (in the loader data), not
 * also as rendered HTML.
 */
const SERVER_RENDER_LIMIT = 16 * 1024;
/** The most of a binary body sent for its hex dump (services' HEX_PREVIEW_BYTES). */
const HEX_BYTES = 64 * 1024;
/** Services' DECODED_BODY_MAX_BYTES, for the note. */
const DECODED_MAX = "1 MiB";

const count = (n: number) => n.toLocaleString("en-US");
const sizeText = (bytes: number) => (bytes < 1024 ? `${bytes} bytes` : `${formatBytes(bytes)} (${count(bytes)} bytes)`);

export interface PayloadInspectorProps {
  body: BodyData;
  contentType: string | null;
  query: string;
  /** Only the body's first `previewBytes` were sent. */
  truncated: boolean;
  previewBytes: number;
  sizeBytes: number;
  downloadUrl: string;
  fileName: string;
}

/**
 * The request body on the event page: a JSON tree (search, expand/collapse), pretty and raw
 * text with line numbers, a form as a table (Slack's payload= JSON expanded), XML indented,
 * multipart parts listed, binary as a hex dump, a compressed body decoded (by the server);
 * the query string as a table; copy and download actions.
 */
export function PayloadInspector(props: PayloadInspectorProps) {
  const { body, contentType, query, truncated, previewBytes, sizeBytes, downloadUrl, fileName } = props;
  const decoded = body.decoded;
  const view: BodyViewData = decoded?.ok ? decoded.view : body;
  const partial = decoded?.ok ? decoded.cut || decoded.fromPreview : truncated;
  // Keyed on the text itself: a reload of the same event keeps the tree as the user left it.
  // A cut preview that starts a JSON document is shown as a tree of its first part.
  const textKind = useMemo(() => (view.text === null ? null : classifyText(view.text, contentType, { partial })), [view.text, contentType, partial]);
  const cutJson = textKind?.kind === "json" && textKind.cut !== undefined;
  const subject = subjectOf(view, textKind, partial);
  const views = viewsOf(subject, decoded?.ok === true);
  const [chosen, setChosen] = useState<ViewId | null>(null);
  const current = chosen !== null && views.includes(chosen) ? chosen : views[0]!;
  const hydrated = useHydrated();
  const deferred = !hydrated && bodyWeight(body) > SERVER_RENDER_LIMIT;

  const prettyText = (): string | undefined =>
    subject.kind.kind === "json" ? prettyJson(subject.kind.value) : subject.kind.kind === "xml" && view.text !== null ? prettyXml(view.text, { partial }) : undefined;

  return (
    <div className="inspector" data-testid="payload-inspector" data-view={current} data-kind={subject.kind.kind}>
      {query ? <QueryTable query={query} /> : null}
      {query ? <h3 className="subheading">Body</h3> : null}
      <div className="inspector-bar">
        <div className="inspector-meta">
          <span className="chip" data-testid="payload-kind">
            {kindLabel(subject)}
          </span>
          {decoded ? <span className="chip inspector-encoding">{decoded.encoding}</span> : null}
          <span className="muted small">{sizeText(sizeBytes)}</span>
        </div>
        <div className="inspector-actions">
          {views.length > 1 ? (
            <div className="inspector-views" role="group" aria-label="Show the body as">
              {views.map((id) => (
                <button key={id} type="button" className="inspector-view" aria-pressed={id === current} onClick={() => setChosen(id)}>
                  {VIEW_LABELS[id]}
                </button>
              ))}
            </div>
          ) : null}
          {subject.kind.kind === "json" || subject.kind.kind === "xml" ? (
            <CopyButton text={() => prettyText() ?? view.text ?? ""} label="Copy pretty" className="button secondary small" />
          ) : null}
          {decoded?.ok && decoded.view.text !== null ? <CopyButton text={decoded.view.text} label="Copy decoded" className="button secondary small" /> : null}
          <a href={downloadUrl} download className="button secondary small" data-testid="download-raw" title={`Every byte as received: ${fileName}, ${sizeText(sizeBytes)}`}>
            <DownloadIcon />
            Download raw
          </a>
        </div>
      </div>
      {truncated ? (
        <p className="note" data-testid="payload-truncated">
          Showing the first {count(previewBytes)} of {count(sizeBytes)} bytes ({formatBytes(sizeBytes)}). Copy preview copies these; Download raw saves every byte.
          {textKind?.kind === "text" && contentType?.toLowerCase().includes("json") ? " Cut short, the JSON does not parse: it is shown as text." : ""}
          {cutJson && !decoded?.ok ? " The tree and Pretty show the JSON up to that point, its open objects and arrays closed; Raw shows the text as it is." : ""}
        </p>
      ) : null}
      {decoded ? <DecodedNote decoded={decoded} received={body.bytes} cutJson={cutJson} /> : null}
      {deferred ? (
        <p className="muted small inspector-loading" data-testid="payload-loading">
          Preparing the payload view…
        </p>
      ) : (
        <SubjectView subject={subject} current={current} body={body} prettyText={prettyText} />
      )}
    </div>
  );
}

function DecodedNote({ decoded, received, cutJson }: { decoded: NonNullable<BodyData["decoded"]>; received: number; cutJson: boolean }) {
  if (!decoded.ok) {
    return (
      <p className="note" data-testid="payload-decode-error">
        {decoded.error} It is shown as received.
      </p>
    );
  }
  return (
    <p className="inspector-note" data-testid="payload-decoded">
      Content-Encoding {decoded.encoding}: showing the body decoded, {count(decoded.view.bytes)} bytes from {count(received)} received.
      {decoded.fromPreview ? " Only the stored preview was decoded." : ""}
      {decoded.cut ? ` Decoding stopped at ${DECODED_MAX}: Download raw has the whole body (compressed).` : ""}
      {cutJson ? " The tree and Pretty show the JSON up to where it stops, its open objects and arrays closed." : ""}
    </p>
  );
}

function SubjectView({ subject, current, body, prettyText }: { subject: Subject; current: ViewId; body: BodyData; prettyText: () => string | undefined }) {
  const { view, kind } = subject;
  const pretty = useMemo(() => (current === "pretty" ? prettyText() : undefined), [current, view.text]);
  switch (current) {
    case "tree":
      return kind.kind === "json" ? (
        <JsonTree value={kind.value} label={kind.cut ? "Request body (JSON tree, up to the cut)" : "Request body (JSON tree)"} testId="payload" cutAt={kind.cut?.openAt ?? null} />
      ) : null;
    case "pretty":
      if (pretty === undefined) {
        return (
          <>
            <p className="inspector-note">{kind.kind === "xml" ? "Not well-formed XML, so it is shown as received." : "Too deeply nested to indent, so it is shown as received."}</p>
            <NumberedText text={view.text ?? ""} label="Request body" testId="payload" kind="text" />
          </>
        );
      }
      return (
        <NumberedText
          text={pretty}
          label={`Request body (${kind.kind === "xml" ? "XML" : "JSON"}, indented${kind.kind === "json" && kind.cut ? ", up to the cut" : ""})`}
          json={kind.kind === "json"}
          testId="payload"
          kind={kind.kind}
        />
      );
    case "raw":
      return <NumberedText text={view.text ?? ""} label="Request body (as received)" json={kind.kind === "json"} testId="payload" kind="text" />;
    case "table":
      return <FormTable text={view.text ?? ""} />;
    case "parts":
      return kind.kind === "multipart" ? <MultipartParts listing={kind.parts} partial={subject.partial} /> : null;
    case "hex":
      return <HexView view={view} label="Request body (hex dump)" />;
    case "received":
      return body.text !== null ? <NumberedText text={body.text} label="Request body (as received)" testId="payload" kind="text" /> : <HexView view={body} label="Request body as received (hex dump)" />;
  }
}

function HexView({ view, label }: { view: BodyViewData; label: string }) {
  const hex = useMemo(() => hexOf(view), [view.base64]);
  return (
    <>
      {view.bytes > HEX_BYTES ? (
        <p className="inspector-note">
          Showing the first {count(HEX_BYTES)} of {count(view.bytes)} bytes as hex.
        </p>
      ) : null}
      <pre className="code-block hexdump" data-testid="payload" data-kind="binary" tabIndex={0} aria-label={label}>
        {hex}
      </pre>
    </>
  );
}

function DownloadIcon() {
  return (
    <svg className="icon" viewBox="0 0 16 16" width="14" height="14" aria-hidden="true" focusable="false">
      <path d="M8 2.5v7.5M4.5 6.75 8 10.25l3.5-3.5M3 13h10" fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round" strokeLinejoin="round" />
    </svg>
  );
}

/**
 * The page header's "Copy payload": the body's text exactly as received (a cut body's
 * preview, then labelled "Copy preview"); for binary content, its hex dump.
 */
export function CopyPayloadButton({ body, truncated, previewBytes }: { body: BodyData; truncated: boolean; previewBytes: number }) {
  if (body.text === null) return <CopyButton text={() => hexOf(body)} label="Copy hex dump" className="button secondary" />;
  return (
    <CopyButton
      text={body.text}
      label={truncated ? "Copy preview" : "Copy payload"}
      accessibleLabel={truncated ? `Copy preview: the first ${count(previewBytes)} bytes of the payload` : undefined}
      className="button secondary"
    />
  );
}

/** Whether the page can build the request's curl command from `body` (the whole body, as text). */
export function curlInBody(truncated: boolean, body: BodyData): boolean {
  return !truncated && body.text !== null;
}

/** The curl command for a request whose whole body is `body.text` (the server's own builder, run here). */
export function curlFromBody(request: { method: string; captureUrl: string; headers: Array<[string, string]> }, body: BodyData): string {
  return curlCommand({ method: request.method, url: request.captureUrl, headers: request.headers, body: new TextEncoder().encode(body.text ?? "") });
}
