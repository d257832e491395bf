/**
 * Event search: a case-insensitive substring of the body or of the headers. Bodies are
 * bytes (any encoding, or none), so PostgreSQL reads them as Latin-1, which maps every byte
 * to one character; the search text's UTF-8 bytes are read the same way, so any string
 * matches the bytes that spell it. Text cannot hold NUL: a body with a NUL byte is compared
 * in the form `encode(body, 'escape')` gives it instead (NUL and bytes of 0x80 and up as
 * \ooo, the backslash doubled), with the text written alike. Headers are searched in their stored JSON
 * text (names and values), where they are Latin-1 too (Node reads header bytes that way)
 * and JSON-escaped; the text is escaped alike. ILIKE folds the case of ASCII letters.
 * Measured on 330,000 bodies: this form costs about half of `encode(body, 'escape')` and a
 * tenth of expanding the header pairs with json_array_elements.
 */

/** Body bytes a search reads of each event: a 10 MiB body costs no more to search than this. */
export const SEARCHED_BODY_BYTES = 64 * 1024;
/** Without a start time, a search looks at events of the last this many hours. */
export const DEFAULT_SEARCH_WINDOW_MS = 24 * 60 * 60 * 1000;
/** The job runner's kind of the search index's upkeep (services' searchIndexing; the bench holds it by this name). */
export const SEARCH_INDEX_JOB = "index_event_search";
/** How far back the search index holds events: the default window and two days more. Older days are searched by reading bodies. */
export const SEARCH_INDEX_HOURS = 72;
/**
 * Events younger than this are not indexed yet (search reads their bodies meanwhile). An
 * event's id is taken once its request is read, and its row commits within the capture
 * statement's limits (5 s to connect, 30 s per statement) or not at all; a row appearing
 * below the index's range afterwards would never be indexed, so the margin is wide.
 */
export const SEARCH_INDEX_LAG_MS = 60_000;
/** Longest search text. */
export const MAX_SEARCH_LENGTH = 200;

/** Text with LIKE's wildcards and its escape character escaped (for `... ilike pattern escape '\'`). */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

/** The text's UTF-8 bytes as `encode(bytes, 'escape')` writes them. */
function escapeEncoded(text: string): string {
  let encoded = "";
  for (const byte of Buffer.from(text, "utf8")) {
    if (byte === 0x5c) encoded += "\\\\";
    else if (byte === 0 || byte >= 0x80) encoded += `\\${byte.toString(8).padStart(3, "0")}`;
    else encoded += String.fromCharCode(byte);
  }
  return encoded;
}

/**
 * The ILIKE patterns (escape character `\`): for a body read as Latin-1, for a body with a
 * NUL byte in its escape form, and for the headers' JSON text.
 */
export function searchPatterns(text: string): { body: string; escapedBody: string; headers: string } {
  const asLatin1 = Buffer.from(text, "utf8").toString("latin1");
  return {
    body: `%${likeLiteral(asLatin1)}%`,
    escapedBody: `%${likeLiteral(escapeEncoded(text))}%`,
    headers: `%${likeLiteral(JSON.stringify(asLatin1).slice(1, -1))}%`,
  };
}
