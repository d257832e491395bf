/**
 * Text that PostgreSQL (and any UTF-8 encoder) accepts. JavaScript strings may hold NUL and
 * lone UTF-16 surrogates; PostgreSQL's text and json types refuse both, so a label or header
 * carrying one would fail the statement that stores it. U+FFFD marks where they were.
 */

const REPLACEMENT = "\uFFFD";
const NEEDS_LOOK = /[\u0000\uD800-\uDFFF]/;
const NUL_OR_LONE_SURROGATE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

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
