/**
 * Chosen fields of a JSON document, read from its bytes in one pass without building the
 * document: sender detection needs a handful of top-level fields ("type", "event", ...) of
 * bodies up to the capture limit (10 MiB by default), and JSON.parse of such a body on the
 * capture path costs about 15 ns a byte and several times its size in memory.
 *
 * What is kept:
 * - the record: the root object, or the first element of a root array when it is an object
 *   (batches: Twilio Event Streams, CloudEvents);
 * - of the record, the wanted keys: strings (their first MAX_STRING_BYTES), numbers,
 *   booleans, null, and objects with their own wanted keys' scalar values (one level);
 *   an array, or an object deeper down, is kept as an empty placeholder.
 * A key repeated keeps its last value, as JSON.parse does. Memory: the wanted fields, plus
 * one byte per level of nesting.
 *
 * The levels that are kept are read by the JSON grammar; every other object or array is
 * skipped by its brackets and strings alone (memchr-speed over long strings), so a body
 * broken deep inside one may still be labelled, where JSON.parse would refuse it whole.
 * A body cut short, or with unbalanced brackets, yields nothing.
 */

export type JsonFields = Record<string, unknown>;

/** Bytes of a string value kept: labels are cut at a few hundred characters anyway. */
const MAX_STRING_BYTES = 1024;
/** A key longer than this is no key anybody wants (and is not decoded). */
const MAX_KEY_BYTES = 256;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;

const IN_OBJECT = 1;
const IN_ARRAY = 2;

const decoder = new TextDecoder("utf-8", { fatal: false });

const isSpace = (c: number) => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
const isDigit = (c: number) => c >= ZERO && c <= NINE;

class Invalid extends Error {}
const invalid = new Invalid();

/** Where a value being read goes: a field of the record or of a kept object; null: nowhere. */
type Target = { into: JsonFields; key: string } | null;

class Scanner {
  private at = 0;
  /** Containers open on the levels read by the grammar (root, record, kept object): 1 object, 2 array. */
  private readonly open: number[] = [];
  /** Containers open inside a skipped one, innermost last (made on first use, grows by doubling). */
  private skipped: Uint8Array | undefined;
  record: JsonFields | undefined;
  /** The open containers' count when the record / the kept object is the innermost (0: not open). */
  private recordDepth = 0;
  private keptDepth = 0;
  private kept: JsonFields | undefined;
  /** Elements of the root array begun so far. */
  private rootElements = 0;

  constructor(
    private readonly bytes: Uint8Array,
    private readonly keys: WantedKeys,
  ) {}

  scan(): void {
    const b = this.bytes;
    // A UTF-8 byte order mark, as TextDecoder would drop it.
    if (b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) this.at = 3;
    this.document();
    this.skipSpace();
    if (this.at !== b.length) throw invalid;
  }

  private skipSpace(): void {
    const b = this.bytes;
    while (this.at < b.length && isSpace(b[this.at]!)) this.at += 1;
  }

  /** Reads the root value and the levels kept, iteratively; skips the rest. */
  private document(): void {
    const b = this.bytes;
    let target: Target = null;
    let expectValue = true;
    for (;;) {
      this.skipSpace();
      if (this.at >= b.length) throw invalid;
      const c = b[this.at]!;
      if (expectValue) {
        if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
          if (!this.enter(c, target)) {
            this.skipContainer();
            if (target) target.into[target.key] = c === OPEN_OBJECT ? {} : [];
            if (this.open.length === 0) return;
            expectValue = false;
            continue;
          }
          this.at += 1;
          this.skipSpace();
          if (b[this.at] === (c === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY)) {
            this.at += 1;
            this.leave();
            if (this.open.length === 0) return;
            expectValue = false;
            continue;
          }
          target = c === OPEN_OBJECT ? this.key() : this.element();
          continue;
        }
        this.scalar(target);
        if (this.open.length === 0) return;
        expectValue = false;
        continue;
      }
      const inObject = this.open[this.open.length - 1] === IN_OBJECT;
      if (c === COMMA) {
        this.at += 1;
        target = inObject ? this.key() : this.element();
        expectValue = true;
        continue;
      }
      if (c !== (inObject ? CLOSE_OBJECT : CLOSE_ARRAY)) throw invalid;
      this.at += 1;
      this.leave();
      if (this.open.length === 0) return;
    }
  }

  /**
   * Opens a container on a level read by the grammar when it is the root, the record or a
   * kept object; false: it is to be skipped.
   */
  private enter(c: number, target: Target): boolean {
    const kind = c === OPEN_OBJECT ? IN_OBJECT : IN_ARRAY;
    const depth = this.open.length;
    const isRecord = kind === IN_OBJECT && this.recordDepth === 0 && this.record === undefined && (depth === 0 || (depth === 1 && this.rootElements === 1));
    if (isRecord) {
      this.record = {};
      this.recordDepth = depth + 1;
    } else if (kind === IN_OBJECT && target && target.into === this.record && this.keptDepth === 0) {
      this.kept = {};
      this.keptDepth = depth + 1;
      target.into[target.key] = this.kept;
    } else if (depth > 0) {
      return false;
    }
    this.open.push(kind);
    return true;
  }

  private leave(): void {
    const depth = this.open.length;
    if (depth === this.keptDepth) this.keptDepth = 0;
    // The record is done: no later object becomes one.
    if (depth === this.recordDepth) this.recordDepth = -1;
    this.open.pop();
  }

  /** An array element begins: counts the root array's. */
  private element(): Target {
    if (this.open.length === 1) this.rootElements += 1;
    return null;
  }

  /** Skips an object or array (at its opening bracket) to past its matching closer. */
  private skipContainer(): void {
    const b = this.bytes;
    let stack = (this.skipped ??= new Uint8Array(64));
    let depth = 0;
    let i = this.at;
    for (;;) {
      if (i >= b.length) throw invalid;
      const c = b[i]!;
      if (c === QUOTE) {
        i = this.stringEnd(i) + 1;
        continue;
      }
      if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        if (depth === stack.length) {
          const grown = new Uint8Array(stack.length * 2);
          grown.set(stack);
          stack = this.skipped = grown;
        }
        stack[depth] = c;
        depth += 1;
      } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
        depth -= 1;
        if (stack[depth] !== (c === CLOSE_OBJECT ? OPEN_OBJECT : OPEN_ARRAY)) throw invalid;
        if (depth === 0) {
          this.at = i + 1;
          return;
        }
      }
      i += 1;
    }
  }

  /** The index of the quote closing the string opened at `open`: the next quote not escaped. */
  private stringEnd(open: number): number {
    const b = this.bytes;
    let i = open + 1;
    // Most strings are short: read here a byte at a time (a call to indexOf costs more than
    // such a string); a long one is searched with indexOf, at memchr speed.
    const near = Math.min(b.length, i + 64);
    while (i < near) {
      const c = b[i]!;
      if (c === QUOTE) return i;
      i += c === BACKSLASH ? 2 : 1;
    }
    for (;;) {
      const quote = i < b.length ? b.indexOf(QUOTE, i) : -1;
      if (quote === -1) throw invalid;
      // Escaped when an odd run of backslashes comes right before it.
      let backslashes = 0;
      while (b[quote - 1 - backslashes] === BACKSLASH) backslashes += 1;
      if (backslashes % 2 === 0) return quote;
      i = quote + 1;
    }
  }

  /** Reads `"key" :` and says where its value goes. */
  private key(): Target {
    const b = this.bytes;
    this.skipSpace();
    if (b[this.at] !== QUOTE) throw invalid;
    const open = this.at;
    const close = this.stringEnd(open);
    this.at = close + 1;
    const depth = this.open.length;
    const into = depth === this.recordDepth ? this.record : depth === this.keptDepth ? this.kept : undefined;
    this.skipSpace();
    if (b[this.at] !== COLON) throw invalid;
    this.at += 1;
    if (!into || close - open > MAX_KEY_BYTES) return null;
    const matched = this.keys.match(b, open + 1, close);
    if (matched === null) return null;
    const key = matched ?? this.decode(open + 1, close);
    return this.keys.has(key) ? { into, key } : null;
  }

  /** The text between two indices of a string's contents, its escapes undone. */
  private decode(from: number, to: number): string {
    const raw = shortAscii(this.bytes, from, to) ?? decoder.decode(this.bytes.subarray(from, to));
    if (!raw.includes("\\")) return raw;
    try {
      return JSON.parse(`"${raw}"`) as string;
    } catch {
      throw invalid;
    }
  }

  private scalar(target: Target): void {
    const b = this.bytes;
    const start = this.at;
    const c = b[start]!;
    if (c === QUOTE) {
      const close = this.stringEnd(start);
      this.at = close + 1;
      if (target) target.into[target.key] = this.keptString(start + 1, close);
      return;
    }
    if (c === MINUS || isDigit(c)) {
      this.number();
      if (target) target.into[target.key] = Number(shortAscii(b, start, this.at) ?? decoder.decode(b.subarray(start, this.at)));
      return;
    }
    for (const [word, value] of LITERALS) {
      if (matches(b, start, word)) {
        this.at += word.length;
        if (target) target.into[target.key] = value;
        return;
      }
    }
    throw invalid;
  }

  /** A string value's first MAX_STRING_BYTES, cut where no escape or UTF-8 character is split. */
  private keptString(from: number, close: number): string {
    const b = this.bytes;
    if (close - from <= MAX_STRING_BYTES) return this.decode(from, close);
    const limit = from + MAX_STRING_BYTES;
    let cut = from;
    while (cut < limit) {
      const step = b[cut] !== BACKSLASH ? 1 : b[cut + 1] === 0x75 ? 6 : 2;
      if (cut + step > limit) break;
      cut += step;
    }
    // Back to the lead byte of a multi-byte character the cut would split.
    while (cut > from && (b[cut]! & 0xc0) === 0x80) cut -= 1;
    return this.decode(from, cut);
  }

  /** -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)? */
  private number(): void {
    const b = this.bytes;
    let i = this.at;
    if (b[i] === MINUS) i += 1;
    if (b[i] === ZERO) i += 1;
    else if (isDigit(b[i] ?? 0)) while (isDigit(b[i] ?? 0)) i += 1;
    else throw invalid;
    if (b[i] === DOT) {
      i += 1;
      if (!isDigit(b[i] ?? 0)) throw invalid;
      while (isDigit(b[i] ?? 0)) i += 1;
    }
    if (b[i] === 0x65 || b[i] === 0x45) {
      i += 1;
      if (b[i] === PLUS || b[i] === MINUS) i += 1;
      if (!isDigit(b[i] ?? 0)) throw invalid;
      while (isDigit(b[i] ?? 0)) i += 1;
    }
    this.at = i;
  }
}

/** Text of at most 64 ASCII bytes without a TextDecoder call (which costs more than such a key). */
function shortAscii(bytes: Uint8Array, from: number, to: number): string | undefined {
  if (to - from > 64) return undefined;
  let text = "";
  for (let i = from; i < to; i += 1) {
    const c = bytes[i]!;
    if (c >= 0x80) return undefined;
    text += String.fromCharCode(c);
  }
  return text;
}

/** The keys asked for, also as bytes: a key in the body is compared byte for byte, not decoded first. */
class WantedKeys {
  private readonly byLength = new Map<number, Array<[Uint8Array, string]>>();

  constructor(private readonly keys: ReadonlySet<string>) {
    for (const key of keys) {
      const bytes = new TextEncoder().encode(key);
      const same = this.byLength.get(bytes.length) ?? [];
      same.push([bytes, key]);
      this.byLength.set(bytes.length, same);
    }
  }

  has(key: string): boolean {
    return this.keys.has(key);
  }

  /**
   * The wanted key spelt by these bytes; null when they spell none without an escape;
   * undefined when they hold an escape (decode them to tell).
   */
  match(bytes: Uint8Array, from: number, to: number): string | null | undefined {
    const candidates = this.byLength.get(to - from);
    for (const [wanted, key] of candidates ?? []) {
      let i = 0;
      while (i < wanted.length && bytes[from + i] === wanted[i]) i += 1;
      if (i === wanted.length) return key;
    }
    for (let i = from; i < to; i += 1) if (bytes[i] === BACKSLASH) return undefined;
    return null;
  }
}

/** WantedKeys of the sets callers pass (senders.ts passes one set for the life of the process). */
const wantedKeysOf = new WeakMap<ReadonlySet<string>, WantedKeys>();

const LITERALS: Array<[Uint8Array, boolean | null]> = [
  [new TextEncoder().encode("true"), true],
  [new TextEncoder().encode("false"), false],
  [new TextEncoder().encode("null"), null],
];

function matches(bytes: Uint8Array, at: number, word: Uint8Array): boolean {
  for (let i = 0; i < word.length; i += 1) if (bytes[at + i] !== word[i]) return false;
  return true;
}

/**
 * The wanted fields of the record of a JSON body (see above), or undefined when the body is
 * not JSON or holds no record (a scalar, an empty array, an array not starting with an object).
 */
export function scanJsonFields(bytes: Uint8Array, keys: ReadonlySet<string>): JsonFields | undefined {
  let wanted = wantedKeysOf.get(keys);
  if (!wanted) wantedKeysOf.set(keys, (wanted = new WantedKeys(keys)));
  const scanner = new Scanner(bytes, wanted);
  try {
    scanner.scan();
  } catch (error) {
    if (error instanceof Invalid) return undefined;
    throw error;
  }
  return scanner.record;
}
