import { UserError } from "./errors.js";
import type { HeaderList } from "./headers.js";
import { HTTP_TOKEN as TOKEN, LINE_BREAK_OR_NUL, OTHER_FIELD_CONTROL as OTHER_CONTROL } from "./http-syntax.js";
import { hasDotSegment } from "./sub-path.js";

/** Most headers an edited replay may carry. */
export const MAX_OVERRIDE_HEADERS = 100;
/** Most bytes of all edited header names and values together. */
export const MAX_OVERRIDE_HEADER_BYTES = 64 * 1024;
/** Longest method name an edited replay may use. */
export const MAX_OVERRIDE_METHOD_LENGTH = 32;
/** Longest edited sub-path (the part appended to the destination's path). */
export const MAX_OVERRIDE_PATH_LENGTH = 2048;
/** Longest edited query string. */
export const MAX_OVERRIDE_QUERY_LENGTH = 8192;

const FIELDS = ["method", "headers", "body", "body_base64", "path", "query"];

/** An edited replay's request, as the caller sent it (unchecked). */
export interface ReplayOverridesInput {
  method?: unknown;
  headers?: unknown;
  body?: unknown;
  body_base64?: unknown;
  path?: unknown;
  query?: unknown;
}

/** Checked overrides: each part given replaces the stored event's. */
export interface ReplayOverrides {
  method?: string;
  headers?: HeaderList;
  body?: Buffer;
  /** The sub-path appended to the target URL instead of the captured one ("" for none). */
  path?: string;
  /** The raw query string (no "?") appended instead of the captured one ("" for none). */
  query?: string;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
// Tunnels and loopback diagnostics are not requests a webhook replay makes (undici refuses them too).
const REFUSED_METHODS = new Set(["CONNECT", "TRACE", "TRACK"]);

const invalid = (message: string) => new UserError("validation_failed", message);

function checkMethod(method: unknown): string {
  if (typeof method !== "string" || !TOKEN.test(method) || method.length > MAX_OVERRIDE_METHOD_LENGTH) {
    throw invalid(`The method must be an HTTP method name of at most ${MAX_OVERRIDE_METHOD_LENGTH} letters, like POST.`);
  }
  if (REFUSED_METHODS.has(method.toUpperCase())) throw invalid(`The method ${method} cannot be replayed. Choose another method, like POST.`);
  return method;
}

function checkHeaders(headers: unknown): HeaderList {
  if (!Array.isArray(headers)) throw invalid('The headers must be a list of [name, value] pairs, like [["content-type", "application/json"]].');
  if (headers.length > MAX_OVERRIDE_HEADERS) throw invalid(`An edited replay can carry at most ${MAX_OVERRIDE_HEADERS} headers. Remove some.`);
  const list: HeaderList = [];
  let bytes = 0;
  for (const [index, pair] of headers.entries()) {
    if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== "string" || typeof pair[1] !== "string") {
      throw invalid(`Header ${index + 1} must be a [name, value] pair of two strings.`);
    }
    const [name, value] = pair as [string, string];
    if (!TOKEN.test(name)) throw invalid(`Header ${index + 1} has an invalid name ${JSON.stringify(name.slice(0, 100))}. Use letters, digits and - only.`);
    if (LINE_BREAK_OR_NUL.test(value)) throw invalid(`The value of the header ${name} contains a line break or NUL character. Remove it.`);
    if (OTHER_CONTROL.test(value)) throw invalid(`The value of the header ${name} contains a control character. Remove it.`);
    bytes += Buffer.byteLength(name) + Buffer.byteLength(value);
    if (bytes > MAX_OVERRIDE_HEADER_BYTES) throw invalid(`The edited headers exceed ${MAX_OVERRIDE_HEADER_BYTES} bytes in all. Shorten them.`);
    list.push([name, value]);
  }
  return list;
}

function checkBody(input: ReplayOverridesInput, maxBodyBytes: number): Buffer | undefined {
  if (input.body !== undefined && input.body_base64 !== undefined) throw invalid("Give either body or body_base64, not both.");
  let body: Buffer | undefined;
  if (input.body !== undefined) {
    if (typeof input.body !== "string") throw invalid("The body must be a string of text (use body_base64 for binary bytes).");
    body = Buffer.from(input.body, "utf8");
  } else if (input.body_base64 !== undefined) {
    if (typeof input.body_base64 !== "string" || !BASE64.test(input.body_base64)) throw invalid("The body_base64 must be standard base64 with padding.");
    body = Buffer.from(input.body_base64, "base64");
  }
  if (body && body.byteLength > maxBodyBytes) throw new UserError("payload_too_large", `The edited body exceeds the limit of ${maxBodyBytes} bytes. Send a smaller one.`);
  return body;
}

// Controls (CR, LF, NUL, tab and the rest) would split or end the request line; "#" would cut the URL short.
const CONTROL = /[\u0000-\u001f\u007f]/;

function checkPath(path: unknown): string {
  if (typeof path !== "string" || (path !== "" && !path.startsWith("/"))) throw invalid('The path must be text starting with "/", like /github/push (or "" for none).');
  if (path.length > MAX_OVERRIDE_PATH_LENGTH) throw invalid(`The path is longer than ${MAX_OVERRIDE_PATH_LENGTH} characters. Shorten it.`);
  if (CONTROL.test(path)) throw invalid("The path contains a line break or another control character. Remove it.");
  if (/[?#]/.test(path)) throw invalid('The path cannot contain "?" or "#": put the query string in query.');
  if (hasDotSegment(path)) throw invalid('The path has a "." or ".." segment (encoded or not), which could leave the destination\'s path. Remove it.');
  return path;
}

function checkQuery(query: unknown): string {
  if (typeof query !== "string") throw invalid('The query must be text, like a=1&b=2 (or "" for none).');
  // A leading "?" is how a query is usually written: it is not part of it.
  const raw = query.startsWith("?") ? query.slice(1) : query;
  if (raw.length > MAX_OVERRIDE_QUERY_LENGTH) throw invalid(`The query is longer than ${MAX_OVERRIDE_QUERY_LENGTH} characters. Shorten it.`);
  if (CONTROL.test(raw)) throw invalid("The query contains a line break or another control character. Remove it.");
  if (raw.includes("#")) throw invalid('The query cannot contain "#". Encode it as %23.');
  return raw;
}

/** Whether the overrides change anything at all (an edited replay rather than a plain one). */
export function hasOverrides(overrides: ReplayOverrides | null | undefined): boolean {
  return !!overrides && Object.values(overrides).some((part) => part !== undefined);
}

/**
 * Checks an edited replay's overrides: a method token, at most MAX_OVERRIDE_HEADERS headers
 * with token names and values free of CR, LF, NUL and other controls, and a body (text or
 * base64, never both) of at most `maxBodyBytes`, a sub-path ("" or starting with "/", at most
 * MAX_OVERRIDE_PATH_LENGTH, no controls, "?", "#" or dot segments) and a query (at most
 * MAX_OVERRIDE_QUERY_LENGTH, no controls or "#"). Null or undefined means a plain replay.
 */
export function parseReplayOverrides(input: unknown, maxBodyBytes: number): ReplayOverrides | null {
  if (input === undefined || input === null) return null;
  if (typeof input !== "object" || Array.isArray(input)) throw invalid("The overrides must be an object with method, headers, body, body_base64, path or query.");
  const raw = input as ReplayOverridesInput;
  const unknown = Object.keys(raw).find((key) => !FIELDS.includes(key));
  if (unknown) throw invalid(`The overrides have an unknown field ${JSON.stringify(unknown.slice(0, 50))}. Use method, headers, body, body_base64, path or query.`);
  const overrides: ReplayOverrides = {};
  if (raw.method !== undefined) overrides.method = checkMethod(raw.method);
  if (raw.headers !== undefined) overrides.headers = checkHeaders(raw.headers);
  const body = checkBody(raw, maxBodyBytes);
  if (body) overrides.body = body;
  if (raw.path !== undefined) overrides.path = checkPath(raw.path);
  if (raw.query !== undefined) overrides.query = checkQuery(raw.query);
  return overrides;
}
