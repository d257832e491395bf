import { percentDecodeBytes } from "./media-type.js";

/** One field of a form body or query string, decoded. */
export interface FormRow {
  name: string;
  value: string;
  /**
   * The value parsed, when it is a JSON object or array: Slack sends interactions as a form
   * whose `payload` field holds the JSON; other senders do the same with other names.
   */
  json?: unknown;
}

export interface FormRows {
  rows: FormRow[];
  /** Fields after the first `limit`, not decoded. */
  omitted: number;
}

/** Fields a form table or query table shows at most. */
export const MAX_FORM_ROWS = 1000;

const lenientUtf8 = new TextDecoder("utf-8");

/** One form component decoded: "+" is a space, bad percent escapes stay as they are, never throws. */
export function decodeFormComponent(text: string): string {
  if (!text.includes("%") && !text.includes("+")) return text;
  return lenientUtf8.decode(percentDecodeBytes(text, true));
}

/** A value worth showing as JSON: an object or array that parses. */
function jsonValue(value: string): unknown {
  const start = value.trimStart()[0];
  if (start !== "{" && start !== "[") return undefined;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * An application/x-www-form-urlencoded body as rows, in order, duplicates kept (as
 * URLSearchParams reads it: "&" separates fields, the first "=" splits name and value).
 * With `expandJson` (the default), values that are JSON objects or arrays carry the parsed
 * value too (Slack's `payload=`).
 */
export function formRows(text: string, options: { expandJson?: boolean; limit?: number } = {}): FormRows {
  const { expandJson = true, limit = MAX_FORM_ROWS } = options;
  const rows: FormRow[] = [];
  let omitted = 0;
  let at = 0;
  while (at <= text.length) {
    let end = text.indexOf("&", at);
    if (end < 0) end = text.length;
    if (end > at) {
      if (rows.length >= limit) omitted += 1;
      else {
        const field = text.slice(at, end);
        const equals = field.indexOf("=");
        const name = decodeFormComponent(equals < 0 ? field : field.slice(0, equals));
        const value = equals < 0 ? "" : decodeFormComponent(field.slice(equals + 1));
        const row: FormRow = { name, value };
        if (expandJson) {
          const json = jsonValue(value);
          if (json !== undefined) row.json = json;
        }
        rows.push(row);
      }
    }
    at = end + 1;
  }
  return { rows, omitted };
}

/** A request's query string (with or without its "?") as rows, values left as text. */
export function queryRows(query: string, limit = MAX_FORM_ROWS): FormRows {
  return formRows(query.startsWith("?") ? query.slice(1) : query, { expandJson: false, limit });
}
