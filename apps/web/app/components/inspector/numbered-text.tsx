import { useMemo } from "react";
import { HighlightedJson } from "../payload";

/** Past this many lines the numbers are left out (the gutter would outweigh the text). */
const MAX_NUMBERED_LINES = 50_000;

function lineCount(text: string): number {
  let lines = 1;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) lines += 1;
  return lines;
}

/**
 * Text with line numbers in a gutter beside it: two <pre> side by side, the numbers one text
 * node, so a 256 KiB body costs two DOM nodes (lines do not wrap, so numbers stay aligned).
 * The gutter is hidden from screen readers and from copying.
 */
export function NumberedText({ text, label, json = false, testId, kind }: { text: string; label: string; json?: boolean; testId?: string; kind: string }) {
  const numbers = useMemo(() => {
    const lines = lineCount(text);
    if (lines > MAX_NUMBERED_LINES) return null;
    let out = "1";
    for (let line = 2; line <= lines; line += 1) out += `\n${line}`;
    return out;
  }, [text]);
  const empty = text.length === 0;
  return (
    <>
      <div className={`code-block inspector-text${numbers ? " has-gutter" : ""}${json ? " json" : ""}${empty ? " is-empty" : ""}`} tabIndex={0} role="region" aria-label={label}>
        {numbers ? (
          <pre className="inspector-gutter" aria-hidden="true" data-testid="line-numbers">
            {numbers}
          </pre>
        ) : null}
        <pre className="inspector-lines" data-testid={testId} data-kind={kind}>
          {json ? <HighlightedJson text={text} /> : text}
        </pre>
      </div>
      {empty ? <p className="muted small">The body is empty.</p> : null}
    </>
  );
}
