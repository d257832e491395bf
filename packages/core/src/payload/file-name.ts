import { mediaType } from "./media-type.js";

const EXTENSIONS: Record<string, string> = {
  "application/json": "json",
  "application/xml": "xml",
  "text/xml": "xml",
  "application/x-www-form-urlencoded": "txt",
  "text/plain": "txt",
  "text/html": "html",
  "text/csv": "csv",
  "application/yaml": "yaml",
  "text/yaml": "yaml",
  "application/pdf": "pdf",
  "application/zip": "zip",
  "application/gzip": "gz",
  "image/png": "png",
  "image/jpeg": "jpg",
  "image/gif": "gif",
  "image/webp": "webp",
};

const ENCODINGS: Record<string, string> = { gzip: "gz", "x-gzip": "gz", br: "br", deflate: "zz", zstd: "zst" };

/** The file extension for a media type: json, xml, txt… or bin for what is not known. */
export function fileExtension(contentType: string | null | undefined): string {
  const type = mediaType(contentType);
  if (EXTENSIONS[type]) return EXTENSIONS[type];
  if (type.endsWith("+json")) return "json";
  if (type.endsWith("+xml")) return "xml";
  if (type.startsWith("text/")) return "txt";
  return "bin";
}

/**
 * The name a raw body downloads under: `event-<id>.<ext>` from its Content-Type, with the
 * compression's suffix when it was sent with a Content-Encoding (the stored bytes are the
 * compressed ones): `event-<id>.json.gz`. Only [0-9A-Za-z-] of the id are kept.
 */
export function rawBodyFileName(eventId: string, contentType: string | null | undefined, contentEncoding?: string | null): string {
  const codings = (contentEncoding ?? "")
    .split(",")
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding && coding !== "identity");
  const suffixes = codings.map((coding) => ENCODINGS[coding] ?? "bin");
  return [`event-${eventId.replace(/[^0-9A-Za-z-]/g, "")}`, fileExtension(contentType), ...suffixes].join(".");
}
