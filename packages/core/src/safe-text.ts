/**
 * Text that PostgreSQL (and any UTF-8 encoder) accepts. JavaScript strings may hold NUL and
 * lone UTF-16 surrogates; PostgreSQL's text and json types refuse both, so a label or header
 * carrying one would fail the statement that stores it. U+FFFD marks where they were.
 */

const REPLACEMENT = "\uFFFD";
const NEEDS_LOOK = /[\u0000\uD800-\uDFFF]/;
const NUL_OR_LONE_SURROGATE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

// The same set, tested once (a global regex's test() would carry lastIndex between calls).
const HAS_NUL_OR_LONE_SURROGATE = new RegExp(NUL_OR_LONE_SURROGATE.source);

/**
 * Whether PostgreSQL can store the text as it is. Input a user typed (a name, a filter) is
 * refused when it is not, rather than changed: see UNSTORABLE_TEXT.
 */
export function isStorableText(text: string): boolean {
  return !NEEDS_LOOK.test(text) || !HAS_NUL_OR_LONE_SURROGATE.test(text);
}

/** Why isStorableText refused a text, after the field's name ("name must not contain …"). */
export const UNSTORABLE_TEXT = "must not contain NUL characters or unpaired surrogates (U+D800–U+DFFF)";

/** The text with NUL and lone surrogates replaced by U+FFFD; well-formed pairs are kept. */
export function storableText(text: string): string {
  // Most strings have neither: one cheap test keeps the capture path fast.
  return NEEDS_LOOK.test(text) ? text.replace(NUL_OR_LONE_SURROGATE, REPLACEMENT) : text;
}

/** At most `maxLength` UTF-16 units, never ending halfway through a surrogate pair. */
export function truncateText(text: string, maxLength: number): string {
  if (text.length <= maxLength) return text;
  const last = text.charCodeAt(maxLength - 1);
  const splitsPair = last >= 0xd800 && last <= 0xdbff;
  return text.slice(0, splitsPair ? maxLength - 1 : maxLength);
}
