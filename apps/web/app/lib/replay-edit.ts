import { base64Bytes } from "./replay";

/** The methods the picker offers (the captured one is added when it is another). */
export const EDIT_METHODS = ["POST", "PUT", "PATCH", "DELETE", "GET", "HEAD", "OPTIONS"] as const;

export type BodyMode = "json" | "text" | "base64";

/** The request as the "Edit request" form holds it. */
export interface RequestDraft {
  method: string;
  headers: Array<{ name: string; value: string }>;
  bodyMode: BodyMode;
  body: string;
}

/** What the server gives to start from (replays.editSource). */
export interface EditSource {
  method: string;
  headers: Array<[string, string]>;
  bodyBase64: string;
}

function isJsonType(headers: Array<[string, string]>): boolean {
  const type = headers.find(([name]) => name.toLowerCase() === "content-type")?.[1] ?? "";
  return /[/+]json\b/i.test(type);
}

/**
 * The form's starting point: a JSON body (by its Content-Type) pretty-printed when it parses,
 * other UTF-8 text as it is, and anything else as base64 so no byte is lost.
 */
export function initialDraft(source: EditSource): RequestDraft {
  const headers = source.headers.map(([name, value]) => ({ name, value }));
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(base64Bytes(source.bodyBase64));
  } catch {
    return { method: source.method, headers, bodyMode: "base64", body: source.bodyBase64 };
  }
  if (!isJsonType(source.headers)) return { method: source.method, headers, bodyMode: "text", body: text };
  try {
    return { method: source.method, headers, bodyMode: "json", body: JSON.stringify(JSON.parse(text), null, 2) };
  } catch {
    return { method: source.method, headers, bodyMode: "json", body: text };
  }
}

/** Why a JSON body does not parse, as a sentence; null when it does (or is not JSON). */
export function bodyError(draft: RequestDraft): string | null {
  if (draft.bodyMode === "base64") return /^[A-Za-z0-9+/]*={0,2}$/.test(draft.body.replace(/\s+/g, "")) ? null : "The body is not valid base64.";
  if (draft.bodyMode !== "json" || draft.body.trim() === "") return null;
  try {
    JSON.parse(draft.body);
    return null;
  } catch (error) {
    return `The body is not valid JSON: ${(error as Error).message}.`;
  }
}

const sameHeaders = (a: RequestDraft["headers"], b: RequestDraft["headers"]) =>
  a.length === b.length && a.every((header, i) => header.name === b[i]!.name && header.value === b[i]!.value);

/**
 * The replay's overrides: only the parts that differ from the original, so an untouched body
 * goes out as its original bytes (not re-formatted); null when nothing was edited.
 */
export function draftOverrides(draft: RequestDraft, original: RequestDraft): { method?: string; headers?: Array<[string, string]>; body?: string; body_base64?: string } | null {
  const overrides: { method?: string; headers?: Array<[string, string]>; body?: string; body_base64?: string } = {};
  if (draft.method !== original.method) overrides.method = draft.method;
  // Blank rows (added and left empty) are not headers.
  const headers = draft.headers.filter((header) => header.name.trim() !== "" || header.value !== "");
  if (!sameHeaders(headers, original.headers)) overrides.headers = headers.map(({ name, value }) => [name.trim(), value]);
  if (draft.body !== original.body) {
    if (draft.bodyMode === "base64") overrides.body_base64 = draft.body.replace(/\s+/g, "");
    else overrides.body = draft.body;
  }
  return Object.keys(overrides).length > 0 ? overrides : null;
}
