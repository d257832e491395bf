/**
 * Event search: a case-insensitive substring of the body text or of any header value.
 * Bodies are bytes (any encoding, or none), so PostgreSQL compares them in the form
 * `encode(body, 'escape')` gives them: every byte as itself except NUL and bytes with the
 * high bit set (written \ooo) and the backslash (written \\). The search text is put in
 * the same form, so any string matches the bytes that spell it in UTF-8; ILIKE then folds
 * the case of ASCII letters (other letters match as written).
 */

/** Body bytes a search reads of each event: a 10 MiB body costs no more to search than this. */
export const SEARCHED_BODY_BYTES = 64 * 1024;
/** Without a start time, a search looks at events of the last this many hours. */
export const DEFAULT_SEARCH_WINDOW_MS = 24 * 60 * 60 * 1000;
/** Longest search text. */
export const MAX_SEARCH_LENGTH = 200;

/** Text with LIKE's wildcards and its escape character escaped (for `... ilike pattern escape '\'`). */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

/** The search text as `encode(bytes, 'escape')` would write its UTF-8 bytes. */
function escapeEncoded(text: string): string {
  let encoded = "";
  for (const byte of Buffer.from(text, "utf8")) {
    if (byte === 0x5c) encoded += "\\\\";
    else if (byte === 0 || byte >= 0x80) encoded += `\\${byte.toString(8).padStart(3, "0")}`;
    else encoded += String.fromCharCode(byte);
  }
  return encoded;
}

/** The ILIKE patterns (escape character `\`) for a body in its escape encoding and for header values. */
export function searchPatterns(text: string): { body: string; header: string } {
  return { body: `%${likeLiteral(escapeEncoded(text))}%`, header: `%${likeLiteral(text)}%` };
}
