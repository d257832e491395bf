import { mediaType } from "./media-type.js";

/** Whether a body should be offered as XML: an XML media type, or text that opens with an XML declaration. */
export function looksLikeXml(text: string, contentType: string | null | undefined): boolean {
  const type = mediaType(contentType);
  if (type === "application/xml" || type === "text/xml" || type.endsWith("+xml")) return text.trimStart().startsWith("<");
  return /^\s*<\?xml[\s?]/.test(text);
}

type Token =
  | { kind: "open"; text: string; name: string }
  | { kind: "close"; text: string; name: string }
  | { kind: "empty"; text: string }
  | { kind: "text"; text: string };

/** The index just past the ">" that ends a tag opened at `from`, quotes respected; -1 if none. */
function tagEnd(text: string, from: number): number {
  let quote = "";
  for (let at = from; at < text.length; at += 1) {
    const ch = text[at]!;
    if (quote) {
      if (ch === quote) quote = "";
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === ">") return at + 1;
    else if (ch === "<") return -1;
  }
  return -1;
}

/** The end of a <!DOCTYPE …> whose internal subset ([…]) may hold ">". */
function declarationEnd(text: string, from: number): number {
  let depth = 0;
  let quote = "";
  for (let at = from; at < text.length; at += 1) {
    const ch = text[at]!;
    if (quote) {
      if (ch === quote) quote = "";
    } else if (ch === '"' || ch === "'") quote = ch;
    else if (ch === "[") depth += 1;
    else if (ch === "]") depth -= 1;
    else if (ch === ">" && depth <= 0) return at + 1;
  }
  return -1;
}

function until(text: string, from: number, marker: string): number {
  const at = text.indexOf(marker, from);
  return at < 0 ? -1 : at + marker.length;
}

const NAME = /^<\/?([^\s/>]+)/;

/** XML as tokens; undefined at anything that is not well-formed enough to indent. */
function tokenize(text: string, partial: boolean): Token[] | undefined {
  const tokens: Token[] = [];
  let at = 0;
  while (at < text.length) {
    if (text[at] !== "<") {
      const next = text.indexOf("<", at);
      const end = next < 0 ? text.length : next;
      tokens.push({ kind: "text", text: text.slice(at, end) });
      at = end;
      continue;
    }
    let end: number;
    let kind: Token["kind"] = "empty";
    if (text.startsWith("<!--", at)) end = until(text, at + 4, "-->");
    else if (text.startsWith("<![CDATA[", at)) end = until(text, at + 9, "]]>");
    else if (text.startsWith("<?", at)) end = until(text, at + 2, "?>");
    else if (text.startsWith("<!", at)) end = declarationEnd(text, at + 2);
    else {
      end = tagEnd(text, at + 1);
      if (end > 0) kind = text[at + 1] === "/" ? "close" : text[end - 2] === "/" ? "empty" : "open";
    }
    if (end < 0) {
      if (!partial) return undefined;
      // A preview cut inside a tag: the rest is shown as it is.
      tokens.push({ kind: "text", text: text.slice(at) });
      break;
    }
    const raw = text.slice(at, end);
    if (kind === "open" || kind === "close") {
      const name = NAME.exec(raw)?.[1];
      if (!name) return undefined;
      tokens.push({ kind, text: raw, name });
    } else tokens.push({ kind: "empty", text: raw });
    at = end;
  }
  return tokens;
}

/** Indentation stops growing here, so a deeply nested document cannot make the output quadratic. */
const MAX_INDENT_DEPTH = 32;

/**
 * XML indented two spaces a level: one element, comment or text a line, an element holding
 * only text kept on one line. Never throws: undefined when the text is not XML that nests
 * properly (an unterminated tag, a close tag that does not match), so callers show it raw.
 * With `partial` (a preview cut short) a cut last tag and unclosed elements are accepted.
 * Text is trimmed between tags; inside it nothing changes. Undefined as well if indenting
 * would make the output larger than `maxChars`.
 */
export function prettyXml(text: string, options: { partial?: boolean; maxChars?: number } = {}): string | undefined {
  const { partial = false } = options;
  const maxChars = options.maxChars ?? Math.max(4 * text.length, 1 << 20);
  try {
    const tokens = tokenize(text, partial);
    if (!tokens) return undefined;
    const lines: string[] = [];
    const open: string[] = [];
    let size = 0;
    const push = (line: string) => {
      const depth = Math.min(open.length, MAX_INDENT_DEPTH);
      const indented = "  ".repeat(depth) + line;
      size += indented.length + 1;
      lines.push(indented);
    };
    let sawElement = false;
    for (let i = 0; i < tokens.length; i += 1) {
      if (size > maxChars) return undefined;
      const token = tokens[i]!;
      if (token.kind === "text") {
        const trimmed = token.text.trim();
        if (trimmed) {
          if (open.length === 0 && !partial && sawElement) return undefined; // text after the root
          push(trimmed);
        }
      } else if (token.kind === "empty") {
        push(token.text);
      } else if (token.kind === "open") {
        sawElement = true;
        // <a>text</a> and <a></a> stay on one line.
        const next = tokens[i + 1];
        const after = tokens[i + 2];
        if (next?.kind === "close" && next.name === token.name) {
          push(token.text + next.text);
          i += 1;
        } else if (next?.kind === "text" && !next.text.includes("\n") && after?.kind === "close" && after.name === token.name) {
          push(token.text + next.text.trim() + after.text);
          i += 2;
        } else {
          push(token.text);
          open.push(token.name);
        }
      } else {
        if (open.at(-1) !== token.name) return undefined;
        open.pop();
        push(token.text);
      }
    }
    if (!sawElement || (open.length > 0 && !partial)) return undefined;
    const pretty = lines.join("\n");
    return pretty.length > maxChars ? undefined : pretty;
  } catch {
    return undefined;
  }
}
