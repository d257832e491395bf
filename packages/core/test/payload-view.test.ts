import { describe, expect, it } from "vitest";
import { describePayload, hexDump, jsonTokens } from "../src/index.js";

const bytes = (...values: number[]) => Uint8Array.from(values);

describe("payload view", () => {
  it("pretty-prints JSON, whatever the content type says", () => {
    const body = Buffer.from('{"a":1,"b":[true,null,"x"]}');
    const pretty = '{\n  "a": 1,\n  "b": [\n    true,\n    null,\n    "x"\n  ]\n}';
    expect(describePayload(body, "application/json")).toEqual({ kind: "json", pretty, value: { a: 1, b: [true, null, "x"] } });
    expect(describePayload(body, "text/plain")).toMatchObject({ kind: "json", pretty });
    expect(describePayload(body, null)).toMatchObject({ kind: "json", pretty });
  });

  it("treats any valid JSON as JSON, scalars and surrounding whitespace included", () => {
    expect(describePayload(Buffer.from(" 42\n"), null)).toEqual({ kind: "json", pretty: "42", value: 42 });
    expect(describePayload(Buffer.from('"hi"'), null)).toEqual({ kind: "json", pretty: '"hi"', value: "hi" });
    expect(describePayload(Buffer.from("null"), null)).toEqual({ kind: "json", pretty: "null", value: null });
  });

  it("skips a UTF-8 byte order mark before JSON", () => {
    expect(describePayload(Buffer.from("\uFEFF[1]"), null)).toMatchObject({ kind: "json", value: [1] });
  });

  it("shows other UTF-8 as text, even when labelled JSON", () => {
    expect(describePayload(Buffer.from("a=1&b=2"), "application/x-www-form-urlencoded")).toEqual({ kind: "text", text: "a=1&b=2" });
    expect(describePayload(Buffer.from('{"a":'), "application/json")).toEqual({ kind: "text", text: '{"a":' });
    expect(describePayload(Buffer.from("héllo ✓ 🎉"), null)).toEqual({ kind: "text", text: "héllo ✓ 🎉" });
  });

  it("shows an empty or blank body as text", () => {
    expect(describePayload(new Uint8Array(), "application/json")).toEqual({ kind: "text", text: "" });
    expect(describePayload(Buffer.from(" \n"), null)).toEqual({ kind: "text", text: " \n" });
  });

  it.each([
    ["a NUL byte", bytes(0x61, 0x00, 0x62)],
    ["JSON with a NUL byte after it", Buffer.from('{"a":1}\0')],
    ["a lone continuation byte", bytes(0x61, 0x80)],
    ["a truncated sequence", bytes(0xe2, 0x9c)],
    ["an overlong encoding", bytes(0xc0, 0xaf)],
    ["an encoded surrogate", bytes(0xed, 0xa0, 0x80)],
    ["a PNG header", bytes(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)],
  ])("shows %s as binary", (_, body) => {
    expect(describePayload(body, "text/plain")).toEqual({ kind: "binary", hex: hexDump(body), size: body.length });
  });
});

describe("hex dump", () => {
  it("prints offset, hex with a gap after the 8th byte, and ASCII", () => {
    const body = Buffer.from("Hello, world!\n\0\x7f\x80\xffABC", "latin1");
    expect(hexDump(body)).toBe(
      [
        "00000000  48 65 6c 6c 6f 2c 20 77  6f 72 6c 64 21 0a 00 7f  Hello, world!...",
        "00000010  80 ff 41 42 43                                    ..ABC",
      ].join("\n"),
    );
  });

  it("keeps the ASCII column aligned on short last lines", () => {
    for (let length = 1; length <= 16; length++) {
      const line = hexDump(new Uint8Array(length).fill(0x41));
      expect(line.indexOf("A")).toBe(8 + 2 + 48 + 2);
      expect(line.length).toBe(60 + length);
    }
  });

  it("is empty for no bytes and has no trailing newline", () => {
    expect(hexDump(new Uint8Array())).toBe("");
    expect(hexDump(new Uint8Array(32)).split("\n")).toHaveLength(2);
  });

  it("numbers lines by byte offset in hex", () => {
    const lines = hexDump(new Uint8Array(300)).split("\n");
    expect(lines).toHaveLength(19);
    expect(lines[1]).toMatch(/^00000010 /);
    expect(lines[18]).toMatch(/^00000120  00 00 00 00 00 00 00 00  00 00 00 00 +\.{12}$/);
  });

  it("stops at maxBytes and says how much more there is", () => {
    const lines = hexDump(new Uint8Array(100), 32).split("\n");
    expect(lines).toEqual([expect.stringMatching(/^00000000 /), expect.stringMatching(/^00000010 /), "… 68 more bytes"]);
    expect(hexDump(new Uint8Array(64 * 1024 + 12345)).split("\n").at(-1)).toBe("… 12345 more bytes");
    expect(hexDump(new Uint8Array(64 * 1024))).not.toContain("more bytes");
  });

  it("can cut in the middle of a line", () => {
    expect(hexDump(bytes(1, 2, 3, 4), 3)).toBe(`00000000  01 02 03${" ".repeat(40)}  ...\n… 1 more bytes`);
  });
});

describe("JSON tokens", () => {
  const join = (text: string) => jsonTokens(text).map((token) => token.text).join("");

  it("labels keys, values, punctuation and whitespace", () => {
    expect(jsonTokens('{\n  "a": -1.5e+3,\n  "b": [true, false, null, "x:y"]\n}')).toEqual([
      { kind: "punctuation", text: "{" },
      { kind: "whitespace", text: "\n  " },
      { kind: "key", text: '"a"' },
      { kind: "punctuation", text: ":" },
      { kind: "whitespace", text: " " },
      { kind: "number", text: "-1.5e+3" },
      { kind: "punctuation", text: "," },
      { kind: "whitespace", text: "\n  " },
      { kind: "key", text: '"b"' },
      { kind: "punctuation", text: ":" },
      { kind: "whitespace", text: " " },
      { kind: "punctuation", text: "[" },
      { kind: "boolean", text: "true" },
      { kind: "punctuation", text: "," },
      { kind: "whitespace", text: " " },
      { kind: "boolean", text: "false" },
      { kind: "punctuation", text: "," },
      { kind: "whitespace", text: " " },
      { kind: "null", text: "null" },
      { kind: "punctuation", text: "," },
      { kind: "whitespace", text: " " },
      { kind: "string", text: '"x:y"' },
      { kind: "punctuation", text: "]" },
      { kind: "whitespace", text: "\n" },
      { kind: "punctuation", text: "}" },
    ]);
  });

  it("keeps escapes inside strings, and tells a key by the colon after it", () => {
    expect(jsonTokens('["a\\"b\\\\", "c"]').filter((token) => token.kind === "string").map((token) => token.text)).toEqual([
      '"a\\"b\\\\"',
      '"c"',
    ]);
    expect(jsonTokens('{"k\\"": "v"}')[1]).toEqual({ kind: "key", text: '"k\\""' });
    expect(jsonTokens('{"k" : 1}')[1]).toEqual({ kind: "key", text: '"k"' });
  });

  it("round-trips pretty JSON exactly", () => {
    const value = {
      id: "evt_123",
      "quo\"te": 'back\\slash / \u2028 \n tab\t',
      n: [0, -0.5, 1e21, 12345678901234, -3e-7],
      nested: { deep: [{}, [], [[null]], { e: "", "": true }] },
      unicode: "héllo 🎉 \u0001",
    };
    const pretty = JSON.stringify(value, null, 2);
    expect(join(pretty)).toBe(pretty);
    const view = describePayload(Buffer.from(JSON.stringify(value)), null);
    expect(view.kind === "json" && join(view.pretty)).toBe(pretty);
  });

  it("round-trips anything, even text that is not JSON", () => {
    for (const text of ["", "{", '"unterminated', '"ends in backslash\\', "-", "- 1", "tru", "nul!", "@#$ ünïcödé", "01.e"]) {
      expect(join(text)).toBe(text);
    }
    expect(jsonTokens("-")).toEqual([{ kind: "punctuation", text: "-" }]);
  });
});
