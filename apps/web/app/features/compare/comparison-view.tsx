import { Card } from "../../components/ui";
import type { Comparison, Side } from "./compare-data.server";
import { BinarySide, SideSummary } from "./side-summary";

/** The two responses' summaries, then their headers and bodies, difference by difference. */
export function ComparisonView({ comparison }: { comparison: Comparison }) {
  const { left, right, headers, body } = comparison;
  const changedHeaders = headers.filter((header) => header.kind !== "same").length;
  return (
    <>
      <div className="compare-columns">
        <SideSummary side={left} which="left" statusChanged={comparison.statusChanged} />
        <SideSummary side={right} which="right" statusChanged={comparison.statusChanged} />
      </div>

      <Card title="Headers" description={headerSummary(headers.length, changedHeaders, left, right)} className="compare-headers">
        {headers.length > 0 ? (
          <div className="table-wrap">
            <table className="compare-table">
              <caption className="sr-only">Response headers, left against right</caption>
              <thead>
                <tr>
                  <th scope="col" aria-label="Change" />
                  <th scope="col">Name</th>
                  <th scope="col">Left</th>
                  <th scope="col">Right</th>
                </tr>
              </thead>
              <tbody>
                {headers.map((header) => (
                  <tr key={header.name.toLowerCase()} className={`diff-${header.kind}`} data-testid="header-diff-row" data-kind={header.kind}>
                    <td className="diff-mark" title={header.kind}>
                      {MARKS[header.kind]}
                      <span className="sr-only">{header.kind}</span>
                    </td>
                    <th scope="row" className="mono break">
                      {header.name}
                    </th>
                    <td className="mono break">{header.left ?? <span className="muted">—</span>}</td>
                    <td className="mono break">{header.right ?? <span className="muted">—</span>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </Card>

      <Card title="Body" description={bodySummary(comparison)} className="compare-body">
        {body.kind === "binary" ? (
          <dl className="kv details-grid" data-testid="binary-diff">
            <BinarySide term="Left" side={body.left} />
            <BinarySide term="Right" side={body.right} />
          </dl>
        ) : body.lines.length === 0 ? (
          <p className="muted">Neither response has a body.</p>
        ) : (
          <div className="diff-wrap">
            <table className="line-diff">
              <caption className="sr-only">Body line diff: removed lines are only on the left, added lines only on the right</caption>
              <tbody>
                {body.lines.map((line, index) => (
                  <tr key={index} className={`diff-${line.kind}`} data-testid="body-diff-line" data-kind={line.kind}>
                    <td className="line-number">{line.left ?? ""}</td>
                    <td className="line-number">{line.right ?? ""}</td>
                    <td className="diff-mark">
                      {MARKS[line.kind]}
                      {line.kind !== "same" ? <span className="sr-only">{line.kind}</span> : null}
                    </td>
                    <td className="line-text">{line.text}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        {body.kind === "lines" && body.cut ? (
          <p className="note" data-testid="diff-cut">
            The bodies are long: the {body.cut}. Open each response to see all of it.
          </p>
        ) : null}
        {left.bodyTruncated || right.bodyTruncated ? <p className="note">Only the beginning of a truncated response body was stored, so only that is compared.</p> : null}
      </Card>
    </>
  );
}

const MARKS = { same: " ", added: "+", removed: "−", changed: "~" } as const;

function headerSummary(total: number, changed: number, left: Side, right: Side): string {
  if (!left.headersRecorded || !right.headersRecorded) return "Not compared: a local replay records only the status and body the browser could read.";
  if (total === 0) return "Neither response has headers.";
  return changed === 0 ? "The same headers on both." : `${changed} of ${total} headers differ (names compared case-insensitively).`;
}

function bodySummary({ body }: Comparison): string {
  if (body.kind === "binary") return `Binary: ${body.equal ? "equal" : "differ"} by SHA-256.`;
  const kind = body.json ? "JSON, keys sorted and indented alike" : "Text";
  return `${kind}: ${body.equal ? "the same on both" : "lines marked − are only on the left, + only on the right"}.`;
}
