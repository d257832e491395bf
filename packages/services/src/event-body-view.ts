import { contentCodings, DECODABLE_CODINGS, isDecodableCoding, listMultipartParts, undoContentCodings, type HeaderList, type MultipartListing } from "@rehook/core";

/** The most of a compressed body (Content-Encoding) that the event page shows decoded. */
export const DECODED_BODY_MAX_BYTES = 1024 * 1024;

/** The most of a binary body sent for its hex dump (the dump stops there and says how much is left). */
export const HEX_PREVIEW_BYTES = 64 * 1024;

/** The Content-Encodings the event page decodes (core's bounded decoder, which search uses too). */
export const DECODED_ENCODINGS = DECODABLE_CODINGS;

/** Some bytes as the payload inspector needs them: the text once, or the start of binary for a hex dump. */
export interface BodyView {
  /** The bytes as text (valid UTF-8 without NUL; a byte order mark kept), exactly; null for binary content. */
  text: string | null;
  /** Binary content: its first HEX_PREVIEW_BYTES, base64-encoded. */
  base64: string | null;
  /** How many bytes the view covers. */
  bytes: number;
  /** The parts of a multipart body (by the boundary in its Content-Type). */
  multipart: MultipartListing | null;
}

export type DecodedBody =
  | {
      encoding: string;
      ok: true;
      /** Decoding stopped at DECODED_BODY_MAX_BYTES: there is more. */
      cut: boolean;
      /** Only the start of the compressed body was decoded (the stored preview). */
      fromPreview: boolean;
      view: BodyView;
    }
  | { encoding: string; ok: false; error: string };

/** An event body ready for the payload inspector: the (preview) bytes as received, and decoded when compressed. */
export interface BodyInspection extends BodyView {
  /** The request's Content-Encoding applied backwards; null when it had none (or identity). */
  decoded: DecodedBody | null;
}

// ignoreBOM: a byte order mark stays in the text, so "Copy payload" copies the exact bytes.
const exactUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function exactText(bytes: Uint8Array): string | null {
  if (bytes.includes(0)) return null;
  try {
    return exactUtf8.decode(bytes);
  } catch {
    return null;
  }
}

/** The inspector's view of some bytes with this Content-Type. */
export function bodyView(bytes: Uint8Array, contentType: string | null): BodyView {
  const text = exactText(bytes);
  return {
    text,
    base64: text === null ? Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, HEX_PREVIEW_BYTES)).toString("base64") : null,
    bytes: bytes.length,
    multipart: listMultipartParts(bytes, contentType) ?? null,
  };
}

/**
 * A body's Content-Encoding undone (gzip, deflate, br; several are undone in reverse
 * order), at most `maxBytes` of it. `partial`: the input is only the start of the body.
 * A coding Rehook does not decode, or a corrupt stream, is an `ok: false` with the reason.
 */
export async function decodeContentEncoding(
  body: Uint8Array,
  contentEncoding: string,
  options: { partial: boolean; contentType: string | null; maxBytes?: number },
): Promise<DecodedBody> {
  const { partial, contentType, maxBytes = DECODED_BODY_MAX_BYTES } = options;
  const codings = contentCodings(contentEncoding);
  const encoding = codings.join(", ");
  const unknown = codings.find((coding) => !isDecodableCoding(coding));
  if (unknown) return { encoding, ok: false, error: `Content-Encoding "${unknown}" is not one the inspector decodes (gzip, deflate, br).` };
  try {
    const { bytes, cut } = await undoContentCodings(body, codings, { partial, maxBytes });
    return { encoding, ok: true, cut, fromPreview: partial, view: bodyView(bytes, contentType) };
  } catch (error) {
    // The error names the coding that failed ("The body is not valid gzip: …").
    return { encoding, ok: false, error: `${error instanceof Error ? error.message : String(error)}.` };
  }
}

/** A request's Content-Encoding: repeated headers make one list, in order ("" when none). */
export function contentEncodingOf(headers: HeaderList): string {
  return headers
    .filter(([name]) => name.toLowerCase() === "content-encoding")
    .map(([, value]) => value)
    .join(", ");
}

/**
 * What the payload inspector shows of an event body (its stored preview): the bytes as
 * received, and, when the request had a Content-Encoding, decoded (bounded, never throws).
 */
export async function inspectEventBody(event: { body: Uint8Array; bodyTruncated: boolean; contentType: string | null; headers: HeaderList }): Promise<BodyInspection> {
  const view = bodyView(event.body, event.contentType);
  const contentEncoding = contentEncodingOf(event.headers);
  const decoded =
    contentEncoding.split(",").some((coding) => !["", "identity"].includes(coding.trim().toLowerCase())) && event.body.length > 0
      ? await decodeContentEncoding(event.body, contentEncoding, { partial: event.bodyTruncated, contentType: event.contentType })
      : null;
  return { ...view, decoded };
}
