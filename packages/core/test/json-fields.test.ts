import { describe, expect, it } from "vitest";
import { scanJsonFields } from "../src/json-fields.js";

const KEYS = new Set(["type", "event", "action", "event-data"]);
const scan = (text: string, keys: ReadonlySet<string> = KEYS) => scanJsonFields(Buffer.from(text), keys);

/** A small deterministic generator (no Math.random: a failure must repeat). */
function generator(seed: number) {
  return () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
}

function randomValue(next: () => number, depth: number): unknown {
  const roll = next();
  if (depth > 3 || roll < 0.3) {
    const kind = next();
    if (kind < 0.2) return `s\u00e9\\"\n${Math.floor(next() * 100)}`;
    if (kind < 0.4) return Math.floor(next() * 100_000) / 7 - 500;
    if (kind < 0.5) return null;
    if (kind < 0.6) return next() < 0.5;
    if (kind < 0.8) return "type";
    return "x\u{1F600}]}{[";
  }
  if (roll < 0.6) return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1));
  const names = ["type", "event", "action", "event-data", "other", "t\u00ffpe", "ty\\pe"];
  const object: Record<string, unknown> = {};
  for (let i = 0; i < next() * 5; i += 1) object[names[Math.floor(next() * names.length)]!] = randomValue(next, depth + 1);
  return object;
}

/** What the scan should keep of a parsed document (see json-fields.ts). */
function expected(document: unknown): unknown {
  const record: unknown = Array.isArray(document) ? document[0] : document;
  if (record === null || typeof record !== "object" || Array.isArray(record)) return undefined;
  const placeholder = (value: unknown) => (value !== null && typeof value === "object" ? (Array.isArray(value) ? [] : {}) : value);
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    if (!KEYS.has(key)) continue;
    if (value !== null && typeof value === "object" && !Array.isArray(value)) {
      kept[key] = Object.fromEntries(Object.entries(value).filter(([inner]) => KEYS.has(inner)).map(([inner, v]) => [inner, placeholder(v)]));
    } else kept[key] = placeholder(value);
  }
  return kept;
}

describe("scanJsonFields", () => {
  it("keeps what JSON.parse would give for the wanted fields, on thousands of generated documents", () => {
    const next = generator(42);
    for (let n = 0; n < 5000; n += 1) {
      const document = randomValue(next, 0);
      const text = JSON.stringify(document, null, n % 2 === 0 ? 1 : undefined);
      expect(scan(text), text).toEqual(expected(document));
      // Cut anywhere short of its end, a document is refused, as JSON.parse refuses it.
      const cut = text.slice(0, Math.floor(next() * text.length));
      if (cut.trim() !== "" && Number.isNaN(Number(cut))) expect(scan(cut), cut).toBeUndefined();
    }
  });

  it("the record: the root object or the first element of a root array", () => {
    expect(scan('{"type":"a"}')).toEqual({ type: "a" });
    expect(scan('[{"type":"first"},{"type":"second"}]')).toEqual({ type: "first" });
    expect(scan('[[{"type":"nested"}],{"type":"second"}]')).toBeUndefined();
    expect(scan('[1,{"type":"second"}]')).toBeUndefined();
    expect(scan("[]")).toBeUndefined();
    expect(scan('"type"')).toBeUndefined();
    expect(scan("42")).toBeUndefined();
    expect(scan("{}")).toEqual({});
  });

  it("a key repeated keeps its last value; escapes in keys and values are undone", () => {
    expect(scan('{"type":"a","data":{"type":"inner"},"type":"b"}')).toEqual({ type: "b" });
    expect(scan('{"event":{"type":"x"},"event":"y"}')).toEqual({ event: "y" });
    expect(scan('{"\\u0074ype":"\\u00e9\\n\\"q\\"","ev\\u0065nt":{"typ\\u0065":"\\ud83d\\ude00"}}')).toEqual({ type: 'é\n"q"', event: { type: "😀" } });
  });

  it("objects one level down keep their scalars only; arrays and deeper objects are placeholders", () => {
    expect(scan('{"event":{"type":"inner","event":{"type":"deep"},"action":[1,2]},"action":[{"type":"no"}]}')).toEqual({
      event: { type: "inner", event: {}, action: [] },
      action: [],
    });
    expect(scan('{"type":1.5e3,"event":null,"action":true,"event-data":false}')).toEqual({ type: 1500, event: null, action: true, "event-data": false });
  });

  it("keeps the first 1,024 bytes of a long string, never splitting an escape or a character", () => {
    expect((scan(JSON.stringify({ type: "t".repeat(5 * 1024 * 1024) }))!["type"] as string)).toBe("t".repeat(1024));
    for (let pad = 1018; pad <= 1026; pad += 1) {
      for (const tail of ["\u00e9", "\u{1F600}", "\\n", "\\u00e9", "\\ud83d\\ude00"]) {
        const raw = `${"p".repeat(pad)}${tail}${"q".repeat(2000)}`;
        const kept = scan(`{"type":"${raw}"}`)!["type"] as string;
        const full = JSON.parse(`"${raw}"`) as string;
        expect(full.startsWith(kept), `${pad} ${tail}`).toBe(true);
        expect(kept.length).toBeGreaterThanOrEqual(1018);
        expect(kept).not.toContain("\uFFFD");
      }
    }
  });

  it("skips everything else by brackets and strings: quotes and brackets inside strings do not confuse it", () => {
    const body = JSON.stringify({ data: { text: 'a "quoted" ]} \\ back\\slash \\"', list: ["]", "}", "\\", "{["] }, type: "after" });
    expect(scan(body)).toEqual({ type: "after" });
  });

  it("finds the end of strings of any length, escaped quotes and backslashes wherever they fall", () => {
    for (let length = 55; length <= 75; length += 1) {
      for (const escape of ['\\"', "\\\\", '\\\\\\"', "\\u0022"]) {
        const text = `${"s".repeat(length)}${escape}${"t".repeat(length % 7)}`;
        const body = `{"data":{"k":"${text}","l":["${text}"]},"type":"${text}","event":"e"}`;
        expect(scan(body), body).toEqual({ type: JSON.parse(`"${text}"`) as string, event: "e" });
      }
    }
  });

  it("refuses bodies cut short, unbalanced or broken at the kept levels", () => {
    for (const bad of [
      '{"type":"a"',
      '{"type":"a",}',
      '{"data":{"x":[1,2}},"type":"a"}',
      '{"data":{"x":"unterminated}},"type":"a"}',
      '{"type" "a"}',
      '{"type":"a"} x',
      '{"type":01}',
      '{"type":1.}',
      '{"type":-}',
      '{"type":tru}',
      '{"type":"\\x"}',
      '{"type":"a" "event":"b"}',
      "[1 2]",
      "",
      "   ",
      "<xml/>",
    ]) {
      expect(scan(bad), bad).toBeUndefined();
    }
  });

  it("a byte order mark and surrounding whitespace are allowed; nesting a million deep does not overflow", () => {
    expect(scan('\uFEFF \n{"type":"a"}\t\r\n')).toEqual({ type: "a" });
    const depth = 1_000_000;
    expect(scan(`{"data":${"[".repeat(depth)}${"]".repeat(depth)},"type":"deep"}`)).toEqual({ type: "deep" });
    expect(scan(`{"data":${"[".repeat(depth)}${"]".repeat(depth - 1)},"type":"deep"}`)).toBeUndefined();
  });

  it("only keys asked for are kept", () => {
    expect(scan('{"type":"a","other":"b"}', new Set(["other"]))).toEqual({ other: "b" });
  });
});
