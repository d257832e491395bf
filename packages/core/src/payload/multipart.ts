import { headerParameters, mediaType } from "./media-type.js";
import { textPreview } from "./text.js";

/** One part of a multipart body, as listed by the payload inspector. */
export interface MultipartPart {
  /** The field name (Content-Disposition `name`), if any. */
  name: string | null;
  /** The uploaded file's name (Content-Disposition `filename`), if any. */
  filename: string | null;
  contentType: string | null;
  /** The part's body in bytes (what arrived of it, when the body was cut). */
  size: number;
  /** Its first characters when it is text; null for binary content. */
  preview: string | null;
  /** The part goes on past `preview`. */
  previewCut: boolean;
  /** False when the body ends inside this part (a cut preview, or a sender that stopped). */
  complete: boolean;
  headers: Array<[string, string]>;
}

export interface MultipartListing {
  boundary: string;
  parts: MultipartPart[];
  /** Parts after the first `maxParts`, counted but not listed. */
  omitted: number;
  /** The closing delimiter (`--boundary--`) was found. */
  closed: boolean;
}

/** The boundary of a multipart/* Content-Type, if it has one. */
export function multipartBoundary(contentType: string | null | undefined): string | undefined {
  if (!contentType || !mediaType(contentType).startsWith("multipart/")) return undefined;
  const boundary = headerParameters(contentType).get("boundary");
  // RFC 2046: 1 to 70 characters.
  return boundary && boundary.length <= 70 ? boundary : undefined;
}

const LF = 0x0a;
const CR = 0x0d;

/** The first index of `needle` in `haystack` at or after `from`, or -1. */
function indexOfBytes(haystack: Uint8Array, needle: Uint8Array, from: number): number {
  const first = needle[0]!;
  const last = haystack.length - needle.length;
  for (let at = haystack.indexOf(first, from); at !== -1 && at <= last; at = haystack.indexOf(first, at + 1)) {
    let matched = true;
    for (let k = 1; k < needle.length; k += 1) {
      if (haystack[at + k] !== needle[k]) {
        matched = false;
        break;
      }
    }
    if (matched) return at;
  }
  return -1;
}

/** The end of the line starting at `from` (the index of its LF), or -1. */
function lineEnd(bytes: Uint8Array, from: number, end: number): number {
  const at = bytes.indexOf(LF, from);
  return at < 0 || at >= end ? -1 : at;
}

const lenientUtf8 = new TextDecoder("utf-8");
/** Header lines as UTF-8 (browsers send file names that way), bad bytes as U+FFFD. */
const headerText = (bytes: Uint8Array) => lenientUtf8.decode(bytes);

/** A part's header block: lines up to the first empty one (continuation lines folded). */
function readHeaders(bytes: Uint8Array, start: number, end: number): { headers: Array<[string, string]>; bodyStart: number } | undefined {
  const headers: Array<[string, string]> = [];
  let at = start;
  while (at < end) {
    const eol = lineEnd(bytes, at, end);
    if (eol < 0) return undefined;
    const stop = eol > at && bytes[eol - 1] === CR ? eol - 1 : eol;
    const line = headerText(bytes.subarray(at, stop));
    at = eol + 1;
    if (line === "") return { headers, bodyStart: at };
    if ((line[0] === " " || line[0] === "\t") && headers.length > 0) {
      headers[headers.length - 1]![1] += ` ${line.trim()}`;
      continue;
    }
    const colon = line.indexOf(":");
    if (colon > 0) headers.push([line.slice(0, colon).trim(), line.slice(colon + 1).trim()]);
  }
  return undefined;
}

function header(headers: Array<[string, string]>, name: string): string | null {
  return headers.find(([key]) => key.toLowerCase() === name)?.[1] ?? null;
}

/**
 * Lists the parts of a multipart body (form-data, mixed, related…) by the boundary in its
 * Content-Type: each part's field name, file name, content type, size and a short preview
 * of text content. Undefined when the type is not multipart or has no boundary. A body cut
 * short (a preview) lists what arrived, its last part marked incomplete. Delimiters are
 * found at the start of a line, CRLF or bare LF; the preamble and epilogue are skipped.
 */
export function listMultipartParts(
  body: Uint8Array,
  contentType: string | null | undefined,
  options: { maxParts?: number; previewChars?: number } = {},
): MultipartListing | undefined {
  const boundary = multipartBoundary(contentType);
  if (boundary === undefined) return undefined;
  const { maxParts = 100, previewChars = 200 } = options;
  const delimiter = new TextEncoder().encode(`--${boundary}`);
  const lineDelimiter = new Uint8Array(delimiter.length + 1);
  lineDelimiter[0] = LF;
  lineDelimiter.set(delimiter, 1);
  const listing: MultipartListing = { boundary, parts: [], omitted: 0, closed: false };

  // The first delimiter: at the very start, or after a preamble line.
  let at = indexOfBytes(body.subarray(0, delimiter.length), delimiter, 0);
  if (at !== 0) {
    const found = indexOfBytes(body, lineDelimiter, 0);
    if (found < 0) return listing;
    at = found + 1;
  }
  while (at >= 0 && at < body.length) {
    const afterDelimiter = at + delimiter.length;
    if (body[afterDelimiter] === 0x2d && body[afterDelimiter + 1] === 0x2d) {
      listing.closed = true;
      break;
    }
    // The rest of the delimiter line (transport padding) is ignored.
    const eol = lineEnd(body, afterDelimiter, body.length);
    if (eol < 0) break;
    const start = eol + 1;
    const next = indexOfBytes(body, lineDelimiter, start > 0 ? start - 1 : 0);
    const complete = next >= 0;
    const end = Math.max(start, !complete ? body.length : next > 0 && body[next - 1] === CR ? next - 1 : next);
    if (listing.parts.length >= maxParts) {
      listing.omitted += 1;
    } else {
      const read = readHeaders(body, start, Math.max(start, end + (complete ? 2 : 0)));
      const headers = read?.headers ?? [];
      const content = read ? body.subarray(Math.min(read.bodyStart, end), end) : new Uint8Array();
      const disposition = header(headers, "content-disposition");
      const parameters = disposition ? headerParameters(disposition) : new Map<string, string>();
      const preview = textPreview(content, previewChars);
      listing.parts.push({
        name: parameters.get("name") ?? null,
        filename: parameters.get("filename") ?? null,
        contentType: header(headers, "content-type"),
        size: content.length,
        preview: preview?.text ?? null,
        previewCut: preview?.cut ?? false,
        complete: complete && read !== undefined,
        headers,
      });
    }
    at = complete ? next + 1 : -1;
  }
  return listing;
}
