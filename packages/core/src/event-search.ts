import { contentCodings, isDecodableCoding, undoContentCodings } from "./content-coding.js";
import type { HeaderList } from "./headers.js";

/**
 * Event search: a case-insensitive substring of the body, of the headers, or of the request's
 * sub-path and query string. Bodies are
 * bytes (any encoding, or none), so PostgreSQL reads them as Latin-1, which maps every byte
 * to one character; the search text's UTF-8 bytes are read the same way, so any string
 * matches the bytes that spell it. Text cannot hold NUL: a body with a NUL byte is compared
 * in the form `encode(body, 'escape')` gives it instead (NUL and bytes of 0x80 and up as
 * \ooo, the backslash doubled), with the text written alike. Headers are searched in their stored JSON
 * text (names and values), where they are Latin-1 too (Node reads header bytes that way)
 * and JSON-escaped; the text is escaped alike. The sub-path and query string are compared as
 * `path?query` (`path` alone without a query), as received (percent-encoded: Node refuses other
 * than ASCII in a request line), with the body's pattern. ILIKE folds the case of ASCII letters.
 * Measured on 330,000 bodies: this form costs about half of `encode(body, 'escape')` and a
 * tenth of expanding the header pairs with json_array_elements.
 *
 * A body sent with a Content-Encoding (gzip, deflate, br) is compared decoded: PostgreSQL
 * cannot decompress, so those events (a header the SQL spots cheaply, CODED_HEADER_PATTERN)
 * are read out and their searchable form made here (searchableBodyOf), bounded.
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
/** Compressed bytes read of a coded body: enough for SEARCHED_BODY_BYTES of output with the codings' framing to spare. */
export const SEARCHED_CODED_BYTES = 2 * SEARCHED_BODY_BYTES;
/**
 * An ILIKE pattern for an event's headers' JSON text that every event with a Content-Encoding
 * header matches (a name is a JSON string: `"content-encoding"`, quotes unescaped). A header
 * value ending in that text matches too; searchableBodyOf reads the real header list.
 */
export const CODED_HEADER_PATTERN = '%"content-encoding"%';
/** Longest search text. */
export const MAX_SEARCH_LENGTH = 200;

/** Text with LIKE's wildcards and its escape character escaped (for `... ilike pattern escape '\'`). */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

/** Bytes as PostgreSQL's `encode(bytes, 'escape')` writes them. */
function escapeEncoded(bytes: Uint8Array): string {
  let encoded = "";
  for (const byte of bytes) {
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
    escapedBody: `%${likeLiteral(escapeEncoded(Buffer.from(text, "utf8")))}%`,
    headers: `%${likeLiteral(JSON.stringify(asLatin1).slice(1, -1))}%`,
  };
}

/** The searchable form of some body bytes, as the SQL makes it: Latin-1, or the escape form when they hold a NUL. */
export interface SearchableBody {
  escaped: boolean;
  text: string;
}

/** `bytes` (at most SEARCHED_BODY_BYTES of them) in the form search compares. */
export function searchableBody(bytes: Uint8Array): SearchableBody {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, SEARCHED_BODY_BYTES));
  return head.includes(0) ? { escaped: true, text: escapeEncoded(head) } : { escaped: false, text: head.toString("latin1") };
}

/**
 * The searchable form of an event's body, from its first SEARCHED_CODED_BYTES (`head`) and its
 * headers: decoded when its Content-Encoding is one Rehook decodes (the decoded text's first
 * SEARCHED_BODY_BYTES), else, or when it does not decode, its bytes as received.
 * `partial`: the body is longer than `head`.
 */
export async function searchableBodyOf(head: Uint8Array, headers: HeaderList, partial: boolean): Promise<SearchableBody> {
  const codings = contentCodings(
    headers
      .filter(([name]) => name.toLowerCase() === "content-encoding")
      .map(([, value]) => value)
      .join(","),
  );
  if (codings.length > 0 && codings.every(isDecodableCoding) && head.byteLength > 0) {
    try {
      return searchableBody((await undoContentCodings(head, codings, { partial, maxBytes: SEARCHED_BODY_BYTES })).bytes);
    } catch {
      // Mislabelled or corrupt: what the sender sent is searched as it is.
    }
  }
  return searchableBody(head);
}
