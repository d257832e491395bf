import { pointerStep } from "./json.js";

/** A JSON document cut short, made whole (see parseJsonPrefix). */
export interface JsonPrefix {
  value: unknown;
  /** The JSON Pointer of the innermost object or array the cut left open; null when the cut was in a root string. */
  openAt: string | null;
}

const WHITESPACE = /[ \t\r\n]*/y;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const WORDS = ["true", "false", "null"];

/** The index of the quote closing the string opened at `open`, or -1 when the text ends first. */
function stringEnd(text: string, open: number): number {
  for (let from = open + 1; ; ) {
    const quote = text.indexOf('"', from);
    if (quote === -1) return -1;
    let backslashes = 0;
    while (text[quote - 1 - backslashes] === "\\") backslashes += 1;
    if (backslashes % 2 === 0) return quote;
    from = quote + 1;
  }
}

/** A string's contents cut short, without the escape the cut split ("\", "\u00"). */
function withoutPartialEscape(contents: string): string {
  const partial = /\\u[0-9a-fA-F]{0,3}$|\\$/.exec(contents);
  if (!partial) return contents;
  // Only when that backslash is not itself escaped ("\\" is a whole escape).
  let backslashes = 0;
  while (contents[partial.index - 1 - backslashes] === "\\") backslashes += 1;
  return backslashes % 2 === 0 ? contents.slice(0, partial.index) : contents;
}

/** The pointer reached from the root by taking the last entry `steps` times. */
function lastPath(value: unknown, steps: number): string {
  let pointer = "";
  let node = value;
  for (let step = 0; step < steps && typeof node === "object" && node !== null; step += 1) {
    const keys = Array.isArray(node) ? node.map((_, index) => index) : Object.keys(node);
    const last = keys.at(-1);
    if (last === undefined) break;
    pointer += pointerStep(last);
    node = (node as Record<string | number, unknown>)[last];
  }
  return pointer;
}

type Expect = "value" | "value-or-close" | "key" | "key-or-close" | "colon" | "after";

/**
 * The value of the start of a JSON document cut short, e.g. the first 256 KiB of a 5 MiB
 * body: the text up to its last complete value (a string cut inside kept as far as it
 * goes, minus a split escape; a number, literal or key cut inside dropped), then the
 * closers of the objects and arrays still open. One pass to find the cut, then JSON.parse
 * of the closed text, which checks the rest of the grammar. Undefined when the text is
 * not the start of a JSON document, or is a whole one.
 */
export function parseJsonPrefix(text: string): JsonPrefix | undefined {
  const closers: string[] = [];
  // The end of the last complete value (or opening bracket): the text up to here, closed, is JSON.
  let safe = 0;
  let partialString: string | null = null;
  let expect: Expect = "value";
  let at = 0;
  const skipSpace = () => {
    WHITESPACE.lastIndex = at;
    WHITESPACE.exec(text);
    at = WHITESPACE.lastIndex;
  };
  for (;;) {
    skipSpace();
    if (at >= text.length) break;
    const ch = text[at]!;
    if ((expect === "value-or-close" || expect === "key-or-close" || expect === "after") && ch === closers.at(-1)) {
      closers.pop();
      at += 1;
      safe = at;
      // A whole document (perhaps with more after it) is no cut prefix.
      if (closers.length === 0) return undefined;
      expect = "after";
      continue;
    }
    if (expect === "after") {
      if (ch !== ",") return undefined;
      at += 1;
      expect = closers.at(-1) === "}" ? "key" : "value";
      continue;
    }
    if (expect === "colon") {
      if (ch !== ":") return undefined;
      at += 1;
      expect = "value";
      continue;
    }
    if (expect === "key" || expect === "key-or-close") {
      if (ch !== '"') return undefined;
      const end = stringEnd(text, at);
      if (end === -1) break; // cut inside a key: dropped
      at = end + 1;
      expect = "colon";
      continue;
    }
    // A value.
    if (ch === "{" || ch === "[") {
      closers.push(ch === "{" ? "}" : "]");
      at += 1;
      safe = at;
      expect = ch === "{" ? "key-or-close" : "value-or-close";
      continue;
    }
    if (ch === '"') {
      const end = stringEnd(text, at);
      if (end === -1) {
        partialString = withoutPartialEscape(text.slice(at + 1));
        break;
      }
      at = end + 1;
    } else {
      NUMBER.lastIndex = at;
      const number = NUMBER.exec(text);
      const word = number ? undefined : WORDS.find((candidate) => text.startsWith(candidate, at));
      const length = number?.[0].length ?? word?.length;
      if (length === undefined) {
        // Cut inside a literal ("tru"): dropped; anything else is not JSON.
        if (WORDS.some((candidate) => candidate.startsWith(text.slice(at)))) break;
        return undefined;
      }
      // A number running into the cut may be missing digits: dropped.
      if (number && at + length >= text.length) break;
      at += length;
    }
    if (closers.length === 0) return undefined; // a whole scalar document
    safe = at;
    expect = "after";
  }
  if (closers.length === 0 && partialString === null) return undefined;
  const start = partialString === null ? text.slice(0, safe) : `${text.slice(0, at)}"${partialString}"`;
  let value: unknown;
  try {
    value = JSON.parse(start + closers.reverse().join(""));
  } catch {
    return undefined;
  }
  return { value, openAt: closers.length === 0 ? null : lastPath(value, closers.length - 1) };
}
