import { decodeUtf8Text } from "./payload-view.js";

export type CurlInput = { method: string; url: string; headers: Array<[string, string]>; body: Uint8Array };

/** Headers curl works out itself, or that describe the original connection rather than the request. */
const SKIPPED = new Set([
  "host",
  "content-length",
  "connection",
  "keep-alive",
  "transfer-encoding",
  "te",
  "trailer",
  "upgrade",
  "expect",
  "proxy-connection",
  "proxy-authorization",
  "proxy-authenticate",
]);

const CONTINUATION = " \\\n  ";

/** POSIX single quoting: nothing is special inside '...', and a ' is written as '\''. */
export function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * A "copy as curl" command for a captured request, for a POSIX shell. Header order and
 * duplicates are kept. A text body is passed inline; anything else is piped in from
 * printf so the bytes arrive exactly.
 */
export function curlCommand(input: CurlInput): string {
  const method = /^[A-Za-z0-9_-]+$/.test(input.method) ? input.method : shellQuote(input.method);
  let command = `curl -X ${method} ${shellQuote(input.url)}`;
  for (const [name, value] of input.headers) {
    if (SKIPPED.has(name.toLowerCase())) continue;
    // "Name:" with nothing after it tells curl to remove the header; "Name;" sends it empty.
    const header = value === "" ? `${name};` : `${name}: ${value}`;
    command += `${CONTINUATION}-H ${shellQuote(header)}`;
  }
  if (input.body.length === 0) return command;
  const text = decodeUtf8Text(input.body);
  if (text !== undefined && isSafeInline(text)) return `${command}${CONTINUATION}--data-binary ${shellQuote(text)}`;
  return `printf '%b' ${shellQuote(printfEscape(input.body))} | ${command}${CONTINUATION}--data-binary @-`;
}

/**
 * Whether text survives as a quoted argument. A leading @ would make curl read a file of
 * that name; control characters other than tab and newline are mangled on paste (a
 * terminal turns CR into LF) or invisible.
 */
function isSafeInline(text: string): boolean {
  return !text.startsWith("@") && !/[\x00-\x08\x0b-\x1f\x7f]/.test(text);
}

/**
 * Bytes as a printf %b argument: printable ASCII as itself, everything else (and \ and ')
 * as a \0ddd octal escape. Octal, not \xHH: POSIX %b only defines \0ddd, and dash's printf
 * prints \x literally. Always three digits, so a digit that follows is not swallowed.
 */
function printfEscape(bytes: Uint8Array): string {
  let out = "";
  for (const byte of bytes) {
    const printable = byte >= 0x20 && byte < 0x7f && byte !== 0x5c && byte !== 0x27;
    out += printable ? String.fromCharCode(byte) : `\\0${byte.toString(8).padStart(3, "0")}`;
  }
  return out;
}
