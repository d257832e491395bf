/** How the dashboard shows a stored body. */
export type PayloadView =
  | { kind: "json"; pretty: string; value: unknown }
  | { kind: "text"; text: string }
  | { kind: "binary"; hex: string; size: number };

export type JsonTokenKind = "key" | "string" | "number" | "boolean" | "null" | "punctuation" | "whitespace";
export type JsonToken = { kind: JsonTokenKind; text: string };

// fatal: a lenient decoder would turn bad bytes into U+FFFD and hide that the body is binary.
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * The body as text if it is valid UTF-8 without NUL bytes, else undefined. NUL is valid
 * UTF-8 but never appears in real text, and shows up in every binary format.
 */
export function decodeUtf8Text(body: Uint8Array): string | undefined {
  if (body.includes(0)) return undefined;
  try {
    return strictUtf8.decode(body);
  } catch {
    return undefined;
  }
}

/**
 * Classifies a body by its bytes, not by contentType: senders mislabel Content-Type often
 * enough (JSON sent as text/plain, text as octet-stream) that the header is no guide to
 * what is safe to show. Any valid JSON counts, scalars included.
 */
export function describePayload(body: Uint8Array, contentType: string | null): PayloadView {
  const text = decodeUtf8Text(body);
  if (text === undefined) return { kind: "binary", hex: hexDump(body), size: body.length };
  if (text.trim() === "") return { kind: "text", text };
  try {
    const value: unknown = JSON.parse(text);
    return { kind: "json", pretty: JSON.stringify(value, null, 2), value };
  } catch {
    return { kind: "text", text };
  }
}

const BYTES_PER_LINE = 16;
/** 16 × "xx", 14 single-space gaps, one double-space gap. */
const HEX_COLUMN_WIDTH = 16 * 2 + 14 + 2;

/**
 * Classic hex dump, 16 bytes a line: offset, hex bytes (a gap after the 8th), printable
 * ASCII. The hex column is padded on the last line so the ASCII column stays aligned.
 * Stops after maxBytes so a large upload cannot make the page enormous.
 */
export function hexDump(bytes: Uint8Array, maxBytes = 64 * 1024): string {
  const shown = Math.min(bytes.length, Math.max(0, maxBytes));
  const lines: string[] = [];
  for (let start = 0; start < shown; start += BYTES_PER_LINE) {
    const end = Math.min(start + BYTES_PER_LINE, shown);
    let hex = "";
    let ascii = "";
    for (let i = start; i < end; i++) {
      const byte = bytes[i]!;
      if (i > start) hex += i - start === 8 ? "  " : " ";
      hex += byte.toString(16).padStart(2, "0");
      ascii += byte >= 0x20 && byte < 0x7f ? String.fromCharCode(byte) : ".";
    }
    lines.push(`${start.toString(16).padStart(8, "0")}  ${hex.padEnd(HEX_COLUMN_WIDTH)}  ${ascii}`);
  }
  if (bytes.length > shown) lines.push(`… ${bytes.length - shown} more bytes`);
  return lines.join("\n");
}

// Sticky patterns, tried at the current position. The string pattern also accepts an
// unterminated string so that any input, not only valid JSON, round-trips.
const WHITESPACE = /[ \t\r\n]+/y;
const STRING = /"(?:[^"\\]|\\[\s\S])*(?:"|\\?$)/y;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const WORD = /true|false|null/y;
const NEXT_NON_WHITESPACE = /[ \t\r\n]*/y;

function matchAt(pattern: RegExp, input: string, at: number): string | undefined {
  pattern.lastIndex = at;
  return pattern.exec(input)?.[0];
}

/**
 * Splits pretty-printed JSON into tokens for syntax highlighting. A string followed by
 * ":" is a key. Never fails: a character it does not recognise becomes a one-character
 * punctuation token, so joining the token texts always gives back the input.
 */
export function jsonTokens(pretty: string): JsonToken[] {
  const tokens: JsonToken[] = [];
  let at = 0;
  while (at < pretty.length) {
    const ch = pretty[at]!;
    let token: JsonToken;
    const space = matchAt(WHITESPACE, pretty, at);
    if (space) {
      token = { kind: "whitespace", text: space };
    } else if (ch === '"') {
      const text = matchAt(STRING, pretty, at) ?? pretty.slice(at);
      const after = at + text.length + (matchAt(NEXT_NON_WHITESPACE, pretty, at + text.length)?.length ?? 0);
      token = { kind: pretty[after] === ":" ? "key" : "string", text };
    } else {
      const number = matchAt(NUMBER, pretty, at);
      const word = number ? undefined : matchAt(WORD, pretty, at);
      if (number) token = { kind: "number", text: number };
      else if (word) token = { kind: word === "null" ? "null" : "boolean", text: word };
      else token = { kind: "punctuation", text: ch };
    }
    tokens.push(token);
    at += token.text.length;
  }
  return tokens;
}
