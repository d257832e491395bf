import { z } from "zod";
import { HTTP_TOKEN, LINE_BREAK_OR_NUL, OTHER_FIELD_CONTROL } from "../http-syntax.js";
import { isStorableText, UNSTORABLE_TEXT } from "../safe-text.js";
import { answerHeaderProblem, inertAnswerHeaders, isServerOwnedHeader, unsavableValueCharacter } from "./answer-policy.js";

/** Limits of an endpoint's custom answer to senders. */
export const MAX_RESPONSE_BODY_BYTES = 64 * 1024;
export const MAX_RESPONSE_DELAY_MS = 30_000;
export const MAX_RESPONSE_HEADERS = 32;
export const MAX_RESPONSE_HEADER_BYTES = 16 * 1024;

/** What an endpoint answers its senders instead of 200 {"received": true, "eventId": …}. */
export interface CustomResponse {
  status: number;
  headers: Record<string, string>;
  /** Text; `{{event_id}}` becomes the stored event's id. */
  body: string;
  delayMs: number;
}

const BODYLESS_STATUSES = new Set([204, 205, 304]);
const EVENT_ID_PLACEHOLDER = /\{\{\s*event_id\s*\}\}/g;
// What {{event_id}} stands for when a saved value is checked: an event id has this shape.
const SAMPLE_EVENT_ID = "01930000-0000-7000-8000-000000000000";

const headersSchema = z.record(z.string(), z.string()).superRefine((headers, issue) => {
  const entries = Object.entries(headers);
  if (entries.length > MAX_RESPONSE_HEADERS) issue.addIssue({ code: "custom", message: `A custom response can set at most ${MAX_RESPONSE_HEADERS} headers.` });
  let bytes = 0;
  const seen = new Set<string>();
  for (const [name, value] of entries) {
    const lower = name.toLowerCase();
    if (!HTTP_TOKEN.test(name)) issue.addIssue({ code: "custom", message: `The response header name ${JSON.stringify(name.slice(0, 100))} is invalid. Use letters, digits and - only.` });
    else if (isServerOwnedHeader(name)) issue.addIssue({ code: "custom", message: `The response header ${name} is set by the server and cannot be customised.` });
    else if (seen.has(lower)) issue.addIssue({ code: "custom", message: `The response header ${name} is given twice (names are case-insensitive).` });
    if (LINE_BREAK_OR_NUL.test(value) || OTHER_FIELD_CONTROL.test(value)) {
      issue.addIssue({ code: "custom", message: `The value of the response header ${name} contains a line break or control character. Remove it.` });
    } else {
      const character = unsavableValueCharacter(value);
      if (character) issue.addIssue({ code: "custom", message: `The value of the response header ${name} contains ${character}: header values may hold printable ASCII, spaces and tabs only.` });
    }
    const problem = HTTP_TOKEN.test(name) && answerHeaderProblem(name, value.replace(EVENT_ID_PLACEHOLDER, SAMPLE_EVENT_ID));
    if (problem) issue.addIssue({ code: "custom", message: `${problem}.` });
    seen.add(lower);
    bytes += Buffer.byteLength(name) + Buffer.byteLength(value);
  }
  if (bytes > MAX_RESPONSE_HEADER_BYTES) issue.addIssue({ code: "custom", message: `The response headers exceed ${MAX_RESPONSE_HEADER_BYTES} bytes in all. Shorten them.` });
});

const statusMessage = "status must be a whole number from 200 to 599";
const delayMessage = `delay_ms must be a whole number of milliseconds from 0 to ${MAX_RESPONSE_DELAY_MS}`;

/** A custom response as saved: every limit above checked, with the field named. */
export const customResponseSchema = z
  .object({
    status: z.number(statusMessage).int(statusMessage).min(200, statusMessage).max(599, statusMessage),
    headers: headersSchema.default({}),
    body: z
      .string("body must be text")
      .refine((body) => Buffer.byteLength(body) <= MAX_RESPONSE_BODY_BYTES, `body must be at most ${MAX_RESPONSE_BODY_BYTES} bytes`)
      // PostgreSQL's json refuses NUL and lone surrogates (a 500 before this check).
      .refine(isStorableText, `body ${UNSTORABLE_TEXT}`)
      .default(""),
    delayMs: z.number(delayMessage).int(delayMessage).min(0, delayMessage).max(MAX_RESPONSE_DELAY_MS, delayMessage).default(0),
  })
  .superRefine((response, issue) => {
    if (BODYLESS_STATUSES.has(response.status) && response.body !== "") {
      issue.addIssue({ code: "custom", message: `A ${response.status} response carries no body. Clear the body or choose another status.` });
    }
  });

/** An answer ready to write: status, headers and body bytes. */
export interface RenderedResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Without a Content-Type of its own, a body that opens like JSON is sent as JSON, anything else as text. */
function defaultContentType(body: string): string {
  const first = body.trimStart()[0];
  return first === "{" || first === "[" ? "application/json" : "text/plain; charset=utf-8";
}

/**
 * The custom response for one event: `{{event_id}}` filled in, in the body and in header
 * values, and served inert whatever was saved (see inertAnswerHeaders).
 */
export function renderCustomResponse(response: CustomResponse, eventId: string): RenderedResponse {
  const filled: Record<string, string> = {};
  for (const [name, value] of Object.entries(response.headers)) filled[name] = value.replace(EVENT_ID_PLACEHOLDER, eventId);
  const headers = inertAnswerHeaders(filled);
  const hasContentType = Object.keys(headers).some((name) => name.toLowerCase() === "content-type");
  if (!hasContentType && response.body !== "") headers["content-type"] = defaultContentType(response.body);
  return { status: response.status, headers, body: response.body.replace(EVENT_ID_PLACEHOLDER, eventId) };
}
