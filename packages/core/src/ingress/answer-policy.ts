import { HTTP_TOKEN } from "../http-syntax.js";

/*
 * What a capture answer may carry. Capture URLs share the dashboard's origin unless
 * CAPTURE_BASE_URL moves them, and a logged-in user can be sent to any of them by a link: a
 * tenant's answer must never be active content there, change what the browser keeps for that
 * origin (cookies, service workers, reporting, HSTS), ask for a password there, or send the
 * user elsewhere. Checked when a custom response is saved, and again when one is served
 * (rows saved before these rules, or written around them, are served inert).
 */

/**
 * On every capture answer, whatever the endpoint set: the answer is a sandboxed document of
 * an opaque origin that runs no script, submits no form and loads nothing; never sniffed.
 */
export const CAPTURE_ANSWER_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": "default-src 'none'; sandbox",
  "x-content-type-options": "nosniff",
};

/** What an answer whose Content-Type is refused is served as instead. */
export const INERT_CONTENT_TYPE = "text/plain; charset=utf-8";

const WHY_SECURITY = "the server sets it on every capture answer and it cannot be changed";
const WHY_ORIGIN = "it would apply to the whole origin the dashboard shares with capture URLs";

// Response headers a capture answer may not set, with the reason the refusal gives.
const REFUSED_HEADERS: ReadonlyMap<string, string> = new Map([
  ["set-cookie", "a capture answer may not set cookies (capture URLs share the dashboard's origin)"],
  ["set-cookie2", "a capture answer may not set cookies (capture URLs share the dashboard's origin)"],
  ["clear-site-data", "it would clear a visitor's cookies and storage, logging them out of the dashboard"],
  ["service-worker-allowed", "it would let a service worker control the dashboard's pages"],
  ["link", "it can preload, prefetch or register resources for the dashboard's origin"],
  ["refresh", "it redirects the browser elsewhere (an open redirect)"],
  ["content-security-policy", WHY_SECURITY],
  ["content-security-policy-report-only", WHY_SECURITY],
  ["x-content-type-options", WHY_SECURITY],
  ["strict-transport-security", WHY_ORIGIN],
  ["alt-svc", WHY_ORIGIN],
  ["nel", WHY_ORIGIN],
  ["report-to", WHY_ORIGIN],
  ["reporting-endpoints", WHY_ORIGIN],
  ["www-authenticate", "it makes browsers ask for a password on the dashboard's origin"],
  ["proxy-authenticate", "it makes browsers ask for a password on the dashboard's origin"],
  ["content-disposition", "it makes browsers download a named file from the dashboard's origin"],
]);

// Framing and connection headers belong to the server: a wrong Content-Length or
// Transfer-Encoding would corrupt the connection for the sender's next request.
const SERVER_OWNED_HEADERS = new Set(["content-length", "transfer-encoding", "connection", "keep-alive", "upgrade", "trailer", "te", "proxy-connection", "date"]);

/** Whether the server alone sets this header on an answer (names compared case-insensitively). */
export function isServerOwnedHeader(name: string): boolean {
  return SERVER_OWNED_HEADERS.has(name.toLowerCase());
}

/** Where a Location header may point: another capture URL on this server (a redirect a sender can be tested with). */
export const CAPTURE_PATH_PREFIX = "/api/webhook/";
const LOCATION_REASON = `it may only be a path under ${CAPTURE_PATH_PREFIX} (another capture URL here): anything else is an open redirect`;

const MEDIA_TYPE = /^([!#$%&'*+.^_`|~0-9a-z-]+)\/([!#$%&'*+.^_`|~0-9a-z-]+)$/;

/**
 * Media types a browser shows as a page, runs as script or hands to a plugin: HTML, XHTML, SVG,
 * every XML type (an XML document may pull in XSLT that makes HTML), XSL, JavaScript and its
 * aliases, multipart/x-mixed-replace and PDF. Everything else (JSON, text, forms, images,
 * binary) is data under nosniff.
 */
function isActiveMediaType(type: string, subtype: string): boolean {
  if (/html|xml|xsl|svg|javascript|ecmascript|jscript|livescript/.test(subtype)) return true;
  if (type === "multipart" && subtype === "x-mixed-replace") return true;
  return type === "application" && (subtype === "pdf" || subtype === "x-shockwave-flash" || subtype === "hta");
}

/**
 * Why a Content-Type value is refused, if it is: an active type, or one that is not a single
 * `type/subtype[; parameters]` (browsers take the last of comma-separated types, so a list
 * could hide text/html behind text/plain).
 */
export function contentTypeProblem(value: string): string | undefined {
  const essence = value.split(";", 1)[0]!.trim().toLowerCase();
  const parts = value.includes(",") ? null : MEDIA_TYPE.exec(essence);
  if (!parts) return `The Content-Type must be one media type like application/json or text/plain, not ${JSON.stringify(value.slice(0, 100))}`;
  if (isActiveMediaType(parts[1]!, parts[2]!)) {
    return `The Content-Type ${essence} is refused because browsers run or render it as a page, and capture URLs share the dashboard's origin. Use a data type such as application/json or text/plain`;
  }
  return undefined;
}

/** Whether a Location value stays on a capture URL of this server, whatever URL it is resolved against. */
function isCaptureLocation(value: string): boolean {
  if (!value.startsWith(CAPTURE_PATH_PREFIX)) return false;
  let resolved: URL;
  try {
    // Browsers resolve against the request's URL; any origin stands in for it here.
    resolved = new URL(value, "http://capture.invalid/api/webhook/slug");
  } catch {
    return false;
  }
  // The URL parser applies dot segments (encoded ones too) and backslashes as a browser does.
  return resolved.origin === "http://capture.invalid" && resolved.pathname.startsWith(CAPTURE_PATH_PREFIX);
}

/**
 * Why a capture answer may not carry this header, if it may not (names compared
 * case-insensitively; `value` already has its placeholders filled in).
 */
export function answerHeaderProblem(name: string, value: string): string | undefined {
  const lower = name.toLowerCase();
  const reason = REFUSED_HEADERS.get(lower);
  if (reason) return `The response header ${name} is refused because ${reason}`;
  if (lower === "location" && !isCaptureLocation(value)) return `The response header ${name} is refused because ${LOCATION_REASON}`;
  if (lower === "content-type") return contentTypeProblem(value);
  return undefined;
}

// What node's writeHead takes in a header value: tab, visible ASCII, space and Latin-1 (0x80–0xFF).
const NODE_FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
// What a custom response may save: ASCII only. Node sends 0x80–0xFF as single Latin-1 bytes, not
// the UTF-8 a user typed (é would arrive as the invalid byte 0xE9), and intermediaries vary.
const SAVED_FIELD_VALUE = /^[\t\x20-\x7e]*$/;

/** Whether node:http can write this header at all (validateHeaderName and validateHeaderValue's rules). */
export function isWritableHeader(name: string, value: string): boolean {
  return HTTP_TOKEN.test(name) && NODE_FIELD_VALUE.test(value);
}

/** The first character of a header value a custom response may not save, as "U+XXXX", if any. */
export function unsavableValueCharacter(value: string): string | undefined {
  if (SAVED_FIELD_VALUE.test(value)) return undefined;
  for (const char of value) {
    if (!SAVED_FIELD_VALUE.test(char)) return `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
  }
  return undefined;
}

/**
 * The headers of a custom answer as served: what node could not write and what a capture
 * answer may not carry are dropped; a refused Content-Type becomes text/plain. The security
 * headers are added by the capture handler to every answer, after these.
 */
export function inertAnswerHeaders(headers: Record<string, string>): Record<string, string> {
  const served: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!isWritableHeader(name, value) || isServerOwnedHeader(name)) continue;
    const lower = name.toLowerCase();
    if (lower === "content-type") served[name] = contentTypeProblem(value) ? INERT_CONTENT_TYPE : value;
    else if (!answerHeaderProblem(name, value)) served[name] = value;
  }
  return served;
}
