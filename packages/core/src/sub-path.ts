// No imports: forwarding uses this rule in the browser bundle too (see browser.ts).

/*
 * A captured sub-path is appended to the destination's path, so it must never climb out of
 * it. URL parsers resolve "." and ".." segments, also spelled %2e, %2E. or .%2e, and read a
 * backslash as a slash; a destination's server may also decode %2f and %5c into separators,
 * decode twice, or read "..;param" as "..". A sub-path with such a segment in any of these
 * spellings is refused at capture, and never forwarded or replayed.
 */
const TAB_OR_NEWLINE = /[\t\n\r]/g; // URL parsers drop them before anything else
const SEPARATOR = /[/\\]/;
const ENCODED = /%(2e|2f|5c|25)/gi;
const DECODED: Record<string, string> = { "2e": ".", "2f": "/", "5c": "\\", "25": "%" };
const MAX_DECODING_ROUNDS = 4;

export const DOT_SEGMENT_REASON = 'the sub-path has a "." or ".." segment (encoded or not), which could leave the destination\'s path';

function isDotSegment(segment: string): boolean {
  const name = segment.split(";", 1)[0];
  return name === "." || name === "..";
}

/** Whether a captured sub-path holds a dot segment in any spelling that may be resolved. */
export function hasDotSegment(subPath: string): boolean {
  let text = subPath.replace(TAB_OR_NEWLINE, "");
  for (let round = 0; round < MAX_DECODING_ROUNDS; round += 1) {
    if (text.split(SEPARATOR).some(isDotSegment)) return true;
    const decoded = text.replace(ENCODED, (_, hex: string) => DECODED[hex.toLowerCase()]!);
    if (decoded === text) return false;
    text = decoded;
  }
  // Still encoded after several rounds: nobody sends that honestly.
  return true;
}
