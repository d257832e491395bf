import { mediaType } from "./media-type.js";
import { looksLikeXml } from "./xml.js";

/** How the inspector reads a text body. */
export type TextBodyKind = { kind: "json"; value: unknown } | { kind: "form" } | { kind: "xml" } | { kind: "text" };

/**
 * A text body's kind: a form by its Content-Type (its fields are not JSON even when a value
 * is), then any text that parses as JSON whatever its label says (a byte order mark
 * skipped), then XML (by type, or by its declaration), else plain text.
 */
export function classifyText(text: string, contentType: string | null | undefined): TextBodyKind {
  if (mediaType(contentType) === "application/x-www-form-urlencoded") return { kind: "form" };
  const unmarked = text.startsWith("\uFEFF") ? text.slice(1) : text;
  if (unmarked.trim() !== "") {
    try {
      return { kind: "json", value: JSON.parse(unmarked) as unknown };
    } catch {
      // not JSON
    }
  }
  if (looksLikeXml(unmarked, contentType)) return { kind: "xml" };
  return { kind: "text" };
}
