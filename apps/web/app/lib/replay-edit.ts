import { editableBody, fromTextBox, parsesAsJson, reindentJson, textBoxText } from "@rehook/core/browser";
import { base64Bytes } from "./replay";

/** The methods the picker offers (the captured one is added when it is another). */
export const EDIT_METHODS = ["POST", "PUT", "PATCH", "DELETE", "GET", "HEAD", "OPTIONS"] as const;

export type BodyMode = "json" | "text" | "base64";

/** The request as the "Edit request" form holds it. */
export interface RequestDraft {
  method: string;
  /** The sub-path appended to the destination ("" for none) and the raw query (no "?"). */
  path: string;
  query: string;
  headers: Array<{ name: string; value: string }>;
  bodyMode: BodyMode;
  /** The body as it will be sent: the captured text exactly (its own line breaks), or base64. */
  body: string;
  /** A text body's own line breaks (the text box shows LF; CRLF is put back on what is typed). */
  lineBreak: "\n" | "\r\n";
  /** Why a body that is not text is edited as base64 ("not UTF-8 text"…). */
  binaryReason?: string;
  /** Send a JSON body that does not parse as it is (to test how the destination copes). */
  sendAsTyped?: boolean;
}

/** What the server gives to start from (replays.editSource). */
export interface EditSource {
  method: string;
  headers: Array<[string, string]>;
  bodyBase64: string;
  path: string;
  query: string;
}

/** What an edited replay sends instead of the captured parts (the API's overrides). */
export interface DraftOverrides {
  method?: string;
  headers?: Array<[string, string]>;
  body?: string;
  body_base64?: string;
  path?: string;
  query?: string;
}

function isJsonType(headers: Array<[string, string]>): boolean {
  const type = headers.find(([name]) => name.toLowerCase() === "content-type")?.[1] ?? "";
  return /[/+]json\b/i.test(type);
}

/**
 * The form's starting point: the body exactly as captured. Text (JSON, by its Content-Type,
 * or anything else) is shown as it came, never re-formatted, so an edit changes only what was
 * typed; a body a text box cannot hold byte for byte (not UTF-8, control characters, mixed
 * line breaks) is shown as base64, and sent as its original bytes unless that is changed.
 */
export function initialDraft(source: EditSource): RequestDraft {
  const request = { method: source.method, path: source.path, query: source.query, headers: source.headers.map(([name, value]) => ({ name, value })) };
  const body = editableBody(base64Bytes(source.bodyBase64));
  if (body.kind === "binary") return { ...request, bodyMode: "base64", body: source.bodyBase64, lineBreak: "\n", binaryReason: body.reason };
  return { ...request, bodyMode: isJsonType(source.headers) ? "json" : "text", body: body.text, lineBreak: body.lineBreak };
}

/** The body as the text box shows it. */
export function shownBody(draft: RequestDraft): string {
  return draft.bodyMode === "base64" ? draft.body : textBoxText(draft.body, draft.lineBreak);
}

/** The draft with the text box's new text as its body (the body's own line breaks kept). */
export function withTypedBody(draft: RequestDraft, typed: string): RequestDraft {
  return { ...draft, body: draft.bodyMode === "base64" ? typed : fromTextBox(typed, draft.lineBreak) };
}

/** "Format": the JSON body laid out two spaces a level, each value as written; null when it does not parse. */
export function formattedBody(draft: RequestDraft): RequestDraft | null {
  if (draft.bodyMode !== "json") return null;
  const formatted = reindentJson(draft.body, draft.lineBreak);
  return formatted === null ? null : { ...draft, body: formatted };
}

/** How many bytes the body sent will have (null: base64 that does not decode). */
export function bodyByteCount(draft: RequestDraft): number | null {
  if (draft.bodyMode !== "base64") return new TextEncoder().encode(draft.body).length;
  const compact = draft.body.replace(/\s+/g, "");
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 === 1) return null;
  try {
    return base64Bytes(compact).length;
  } catch {
    return null;
  }
}

/** Why a JSON body does not parse, as a sentence; null when it does (or is not JSON). */
export function bodyError(draft: RequestDraft): string | null {
  if (draft.bodyMode === "base64") return /^[A-Za-z0-9+/]*={0,2}$/.test(draft.body.replace(/\s+/g, "")) ? null : "The body is not valid base64.";
  if (draft.bodyMode !== "json" || draft.body.trim() === "" || parsesAsJson(draft.body)) return null;
  try {
    JSON.parse(draft.body.replace(/^\uFEFF/, ""));
    return null;
  } catch (error) {
    return `The body is not valid JSON: ${(error as Error).message}.`;
  }
}

/**
 * What stops the draft from being sent, as a sentence: broken base64 always; JSON that does not
 * parse unless the user chose to send it as typed. Null: it can be sent.
 */
export function sendBlocker(draft: RequestDraft): string | null {
  const error = bodyError(draft);
  if (!error) return null;
  return draft.bodyMode === "json" && draft.sendAsTyped ? null : error;
}

const sameHeaders = (a: RequestDraft["headers"], b: RequestDraft["headers"]) =>
  a.length === b.length && a.every((header, i) => header.name === b[i]!.name && header.value === b[i]!.value);

/**
 * The replay's overrides: only the parts that differ from the original, so an untouched body
 * goes out as its original bytes (not re-formatted); null when nothing was edited.
 */
export function draftOverrides(draft: RequestDraft, original: RequestDraft): DraftOverrides | null {
  const overrides: DraftOverrides = {};
  if (draft.method !== original.method) overrides.method = draft.method;
  if (draft.path !== original.path) overrides.path = draft.path;
  if (draft.query !== original.query) overrides.query = draft.query;
  // Blank rows (added and left empty) are not headers.
  const headers = draft.headers.filter((header) => header.name.trim() !== "" || header.value !== "");
  if (!sameHeaders(headers, original.headers)) overrides.headers = headers.map(({ name, value }) => [name.trim(), value]);
  if (draft.body !== original.body) {
    if (draft.bodyMode === "base64") overrides.body_base64 = draft.body.replace(/\s+/g, "");
    else overrides.body = draft.body;
  }
  return Object.keys(overrides).length > 0 ? overrides : null;
}
