import { describe, expect, it } from "vitest";
import { editableBody, fromTextBox, parsesAsJson, reindentJson, textBoxText } from "../src/index.js";

const utf8 = (text: string) => new TextEncoder().encode(text);

describe("editableBody", () => {
  it("keeps UTF-8 text as it is, a byte order mark included", () => {
    expect(editableBody(utf8('{"total":10}'))).toEqual({ kind: "text", text: '{"total":10}', lineBreak: "\n" });
    expect(editableBody(utf8("\uFEFF[1]"))).toEqual({ kind: "text", text: "\uFEFF[1]", lineBreak: "\n" });
    expect(editableBody(utf8("a\tb\nc"))).toMatchObject({ kind: "text", lineBreak: "\n" });
  });

  it("takes CRLF line breaks as the body's own, and mixed ones, lone CRs, controls and non-UTF-8 as binary", () => {
    expect(editableBody(utf8("a\r\nb\r\n"))).toEqual({ kind: "text", text: "a\r\nb\r\n", lineBreak: "\r\n" });
    expect(editableBody(utf8("a\r\nb\n"))).toEqual({ kind: "binary", reason: "it mixes line breaks" });
    expect(editableBody(utf8("a\rb"))).toEqual({ kind: "binary", reason: "it mixes line breaks" });
    expect(editableBody(utf8("a\u0000b"))).toEqual({ kind: "binary", reason: "it contains control characters" });
    expect(editableBody(Uint8Array.from([0xff, 0xfe, 0x80]))).toEqual({ kind: "binary", reason: "not UTF-8 text" });
  });

  it("shows CRLF text with LF and puts the CRLFs back on what is typed", () => {
    const shown = textBoxText("a\r\nb", "\r\n");
    expect(shown).toBe("a\nb");
    expect(fromTextBox(`${shown}\nc`, "\r\n")).toBe("a\r\nb\r\nc");
    expect(fromTextBox("a\nb", "\n")).toBe("a\nb");
  });
});

describe("reindentJson", () => {
  it("lays JSON out two spaces a level, keeping every token as written", () => {
    const compact = '{"id":"evt_1","amount":12345678901234567890,"ratio":1.50,"e":"\\u00e9","dup":1,"dup":2,"tags":[],"meta":{},"list":[1,{"a":null}]}';
    expect(reindentJson(compact)).toBe(
      [
        "{",
        '  "id": "evt_1",',
        '  "amount": 12345678901234567890,',
        '  "ratio": 1.50,',
        '  "e": "\\u00e9",',
        '  "dup": 1,',
        '  "dup": 2,',
        '  "tags": [],',
        '  "meta": {},',
        '  "list": [',
        "    1,",
        "    {",
        '      "a": null',
        "    }",
        "  ]",
        "}",
      ].join("\n"),
    );
  });

  it("re-indents already indented JSON the same way, keeps a BOM and the body's line breaks, and refuses what is not JSON", () => {
    expect(reindentJson('{\n    "a" :  [ 1 ,2 ]\n}')).toBe('{\n  "a": [\n    1,\n    2\n  ]\n}');
    expect(reindentJson("\uFEFF[1]")).toBe("\uFEFF[\n  1\n]");
    expect(reindentJson('{"a":1}', "\r\n")).toBe('{\r\n  "a": 1\r\n}');
    expect(reindentJson('"a , b : {"')).toBe('"a , b : {"');
    expect(reindentJson('{"a":')).toBeNull();
    expect(parsesAsJson("\uFEFF{}")).toBe(true);
  });
});
