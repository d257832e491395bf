// Text a tenant controls (bodies, headers, paths, names) printed to a terminal: escape
// sequences in it would be commands to the terminal (move the cursor, retitle the window,
// hide what follows), so every control character is shown as a visible escape instead.

/** C0 controls, DEL, C1 controls (U+009B is a CSI on its own) and the bidi overrides that reorder what is shown. */
const UNSAFE = /[\u0000-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g;
/** The same, keeping line breaks and tabs: for a body shown over several lines. */
const UNSAFE_IN_BLOCK = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g;

function visible(char: string): string {
  const code = char.charCodeAt(0);
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, "0")}` : `\\u${code.toString(16).padStart(4, "0")}`;
}

/** One line of display text: every control character (line breaks too) as \xNN. */
export function printable(text: string): string {
  return text.replace(UNSAFE, visible);
}

/** Several lines of display text: line breaks and tabs kept, other controls as \xNN (a CRLF's CR too). */
export function printableBlock(text: string): string {
  return text.replace(/\r\n/g, "\n").replace(UNSAFE_IN_BLOCK, visible);
}

/** An SGR colour (31 red, 32 green, 33 yellow) for a terminal that wants it (ClientEnvironment.color: a TTY without NO_COLOR). */
export function paint(color: boolean, code: number | undefined, text: string): string {
  return color && code !== undefined ? `\x1b[${code}m${text}\x1b[0m` : text;
}
