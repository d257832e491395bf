import { jsonTokens } from "./payload-view.js";

/**
 * How the replay editor holds a captured body so that what it sends differs from the original
 * only where the user typed. A text box changes some text by itself: it reports every line
 * break as LF, so a CRLF body is shown with LF and its CRLFs put back on the way out; a body
 * that mixes line breaks, has a lone CR or control characters, or is not UTF-8 is not text a
 * text box can hold, and is edited as base64 instead.
 */
export type EditableBody = { kind: "text"; text: string; lineBreak: "\n" | "\r\n" } | { kind: "binary"; reason: string };

// ignoreBOM: a leading byte order mark stays in the text, so an edit keeps it.
const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
/** C0 controls a text box would not keep as they are (tab, LF and CR aside). */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f]/;

export function editableBody(bytes: Uint8Array): EditableBody {
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    return { kind: "binary", reason: "not UTF-8 text" };
  }
  if (CONTROL.test(text)) return { kind: "binary", reason: "it contains control characters" };
  if (!text.includes("\r")) return { kind: "text", text, lineBreak: "\n" };
  const crlf = text.match(/\r\n/g)?.length ?? 0;
  const cr = text.match(/\r/g)!.length;
  const lf = text.match(/\n/g)?.length ?? 0;
  if (crlf === cr && crlf === lf) return { kind: "text", text, lineBreak: "\r\n" };
  return { kind: "binary", reason: "it mixes line breaks" };
}

/** The text as a text box shows it (line breaks as LF). */
export function textBoxText(text: string, lineBreak: "\n" | "\r\n"): string {
  return lineBreak === "\r\n" ? text.replaceAll("\r\n", "\n") : text;
}

/** What the user typed, with the body's own line breaks put back. */
export function fromTextBox(typed: string, lineBreak: "\n" | "\r\n"): string {
  return lineBreak === "\r\n" ? typed.replace(/\r\n|\r|\n/g, "\r\n") : typed;
}

/** The text without a leading byte order mark (JSON.parse refuses one). */
function withoutBom(text: string): string {
  return text.startsWith("\uFEFF") ? text.slice(1) : text;
}

/** Whether the text is JSON (a leading byte order mark allowed). */
export function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(withoutBom(text));
    return true;
  } catch {
    return false;
  }
}

/**
 * JSON laid out again, `indent` per level, every token kept as written: numbers keep their
 * digits (no rounding past 2^53), strings their escapes, objects their duplicate keys and
 * order. Empty objects and arrays stay `{}` and `[]`. Null when the text is not JSON.
 */
export function reindentJson(text: string, lineBreak: "\n" | "\r\n" = "\n", indent = "  "): string | null {
  if (!parsesAsJson(text)) return null;
  const bom = text.startsWith("\uFEFF") ? "\uFEFF" : "";
  const tokens = jsonTokens(withoutBom(text)).filter((token) => token.kind !== "whitespace");
  let out = bom;
  let depth = 0;
  const newline = () => lineBreak + indent.repeat(depth);
  tokens.forEach((token, i) => {
    const next = tokens[i + 1];
    if (token.kind !== "punctuation") {
      out += token.text;
      return;
    }
    switch (token.text) {
      case "{":
      case "[": {
        const empty = next?.text === (token.text === "{" ? "}" : "]");
        out += token.text;
        if (!empty) {
          depth += 1;
          out += newline();
        }
        return;
      }
      case "}":
      case "]": {
        const previous = tokens[i - 1];
        const closesEmpty = previous?.text === (token.text === "}" ? "{" : "[");
        if (!closesEmpty) {
          depth -= 1;
          out += newline();
        }
        out += token.text;
        return;
      }
      case ",":
        out += `,${newline()}`;
        return;
      case ":":
        out += ": ";
        return;
      default:
        out += token.text;
    }
  });
  return out;
}
