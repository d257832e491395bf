import type { ServerResponse } from "node:http";

/** Fields a handler adds to its request's access line (the API key's display prefix, say). */
export type AccessFields = Record<string, string | number | boolean>;

// Keyed by the response: the access line is written by the server's listener, which knows
// nothing of routes, when the answer ends; a WeakMap lets it go with the response.
const annotations = new WeakMap<ServerResponse, AccessFields>();

/** Adds fields to the one access line this request will log. */
export function annotateAccess(res: ServerResponse, fields: AccessFields): void {
  annotations.set(res, { ...annotations.get(res), ...fields });
}

/** What handlers added to this request's access line (empty when nothing). */
export function accessAnnotations(res: ServerResponse): AccessFields {
  return annotations.get(res) ?? {};
}
