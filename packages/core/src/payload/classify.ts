import { parseJsonPrefix } from "./json-prefix.js";
import { mediaType } from "./media-type.js";
import { looksLikeXml } from "./xml.js";

/**
 * How the inspector reads a text body. A JSON body cut short (`cut`) is the value of its
 * text up to the cut, its open objects and arrays closed (see parseJsonPrefix).
 */
export type TextBodyKind = { kind: "json"; value: unknown; cut?: { openAt: string | null } } | { kind: "form" } | { kind: "xml" } | { kind: "text" };

/**
 * A text body's kind: a form by its Content-Type (its fields are not JSON even when a value
 * is), then any text that parses as JSON whatever its label says (a byte order mark
 * skipped) or, when the text is only the start of the body (`partial`), that starts a JSON
 * document, then XML (by type, or by its declaration), else plain text.
 */
export function classifyText(text: string, contentType: string | null | undefined, options: { partial?: boolean } = {}): TextBodyKind {
  if (mediaType(contentType) === "application/x-www-form-urlencoded") return { kind: "form" };
  const unmarked = text.startsWith("\uFEFF") ? text.slice(1) : text;
  if (unmarked.trim() !== "") {
    try {
      return { kind: "json", value: JSON.parse(unmarked) as unknown };
    } catch {
      // not JSON, or not all of it
    }
    const prefix = options.partial ? parseJsonPrefix(unmarked) : undefined;
    if (prefix) return { kind: "json", value: prefix.value, cut: { openAt: prefix.openAt } };
  }
  if (looksLikeXml(unmarked, contentType)) return { kind: "xml" };
  return { kind: "text" };
}
