import { z } from "zod";
import { isStorableText, UNSTORABLE_TEXT } from "./safe-text.js";

/**
 * A text input that reaches PostgreSQL (a name, a filter, a search): any string without NUL
 * or an unpaired surrogate, which PostgreSQL's text and json types refuse (the statement
 * would fail, a 500). `field` names it in the message; without it the message starts at
 * "must not …" and the field's path names it (issueSentence: "Name must not contain …").
 * Chain the field's own rules after it: z.string's checks (trim, min, max) still apply.
 */
export function safeText(field?: string) {
  return z.string().refine(isStorableText, field ? `${field} ${UNSTORABLE_TEXT}` : UNSTORABLE_TEXT);
}
