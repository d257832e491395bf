import { describe, expect, it } from "vitest";
import { compareBodies, comparableBody, diffHeaders, diffLines, MAX_DIFF_CHARS, MAX_DIFF_LINES, stableJson } from "../src/index.js";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("diffHeaders", () => {
  it("matches names case-insensitively and marks added, removed and changed, in order of first appearance", () => {
    const changes = diffHeaders(
      [
        ["Content-Type", "application/json"],
        ["X-Old", "1"],
        ["Cache-Control", "no-store"],
      ],
      [
        ["x-new", "yes"],
        ["cache-control", "no-store"],
        ["content-type", "text/plain"],
      ],
    );
    expect(changes).toEqual([
      { name: "Content-Type", kind: "changed", left: "application/json", right: "text/plain" },
      { name: "X-Old", kind: "removed", left: "1", right: null },
      { name: "Cache-Control", kind: "same", left: "no-store", right: "no-store" },
      { name: "x-new", kind: "added", left: null, right: "yes" },
    ]);
  });

  it("joins repeated headers and treats no response as no headers", () => {
    expect(diffHeaders(null, [["Set-Cookie", "a=1"], ["set-cookie", "b=2"]])).toEqual([{ name: "Set-Cookie", kind: "added", left: null, right: "a=1, b=2" }]);
    expect(diffHeaders([["A", "1"]], null)).toEqual([{ name: "A", kind: "removed", left: "1", right: null }]);
  });
});

describe("diffLines", () => {
  it("keeps common lines and numbers each side", () => {
    const { lines, cut } = diffLines("a\nb\nc\nd", "a\nx\nc\nd\ne");
    expect(cut).toBeNull();
    expect(lines).toEqual([
      { kind: "same", left: 1, right: 1, text: "a" },
      { kind: "removed", left: 2, right: null, text: "b" },
      { kind: "added", left: null, right: 2, text: "x" },
      { kind: "same", left: 3, right: 3, text: "c" },
      { kind: "same", left: 4, right: 4, text: "d" },
      { kind: "added", left: null, right: 5, text: "e" },
    ]);
  });

  it("finds the longest common run in the middle, not only the common ends", () => {
    const kinds = diffLines("1\n2\n3\n4\n5", "0\n2\n3\n4\n6").lines.map((line) => `${line.kind[0]}${line.text}`);
    expect(kinds).toEqual(["r1", "a0", "s2", "s3", "s4", "r5", "a6"]);
  });

  it("handles empty sides and CRLF", () => {
    expect(diffLines("", "").lines).toEqual([]);
    expect(diffLines("", "a\r\nb").lines.map((line) => line.kind)).toEqual(["added", "added"]);
    expect(diffLines("a\r\nb", "a\nb").lines.every((line) => line.kind === "same")).toBe(true);
  });

  it(`cuts each side at ${MAX_DIFF_LINES} lines and says so`, () => {
    const left = Array.from({ length: 5_000 }, (_, i) => `line ${i}`).join("\n");
    const right = Array.from({ length: 5_000 }, (_, i) => `other ${i}`).join("\n");
    const started = performance.now();
    const { lines, cut } = diffLines(left, right);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(cut).toBe("diff cut at 2,000 lines");
    expect(lines.filter((line) => line.kind === "removed")).toHaveLength(MAX_DIFF_LINES);
    expect(lines.filter((line) => line.kind === "added")).toHaveLength(MAX_DIFF_LINES);
  });

  it("cuts each side at 256 KiB of text and says so", () => {
    const long = "x".repeat(MAX_DIFF_CHARS + 10);
    const { lines, cut } = diffLines(long, "y");
    expect(cut).toBe("diff cut at 256 KiB");
    expect(lines.find((line) => line.kind === "removed")?.text).toHaveLength(MAX_DIFF_CHARS);
  });

  it("takes smaller limits when given", () => {
    expect(diffLines("a\nb\nc", "a\nb\nc", { lines: 2, chars: 100 })).toEqual({
      lines: [
        { kind: "same", left: 1, right: 1, text: "a" },
        { kind: "same", left: 2, right: 2, text: "b" },
      ],
      cut: "diff cut at 2 lines",
    });
  });
});

describe("JSON normalisation", () => {
  it("sorts keys at every depth and indents with 2 spaces", () => {
    expect(stableJson({ b: 1, a: { d: [true, null], c: "x" }, e: [], f: {} })).toEqual({
      text: '{\n  "a": {\n    "c": "x",\n    "d": [\n      true,\n      null\n    ]\n  },\n  "b": 1,\n  "e": [],\n  "f": {}\n}',
      cut: false,
    });
  });

  it("makes key order and spacing no difference", () => {
    const result = compareBodies(bytes('{"ok":false,"id":1}'), bytes('{ "id": 1, "ok": false }'));
    expect(result).toMatchObject({ kind: "lines", json: true, equal: true, cut: null });
  });

  it("shows the changed line of two JSON bodies", () => {
    const result = compareBodies(bytes('{"ok":false}'), bytes('{"ok":true}'));
    expect(result.kind === "lines" && result.lines.filter((line) => line.kind !== "same")).toEqual([
      { kind: "removed", left: 2, right: null, text: '  "ok": false' },
      { kind: "added", left: null, right: 2, text: '  "ok": true' },
    ]);
  });

  it("falls back to the raw text when the body is not JSON or is nested too deep", () => {
    expect(comparableBody(bytes("hello {"))).toEqual({ kind: "text", text: "hello {", json: false });
    const deep = "[".repeat(1_000) + "]".repeat(1_000);
    expect(comparableBody(bytes(deep))).toEqual({ kind: "text", text: deep, json: false });
    expect(comparableBody(null)).toEqual({ kind: "text", text: "", json: false });
  });

  it("stops printing past its limit, however much the indents grow", () => {
    const wide = JSON.stringify(Array.from({ length: 100_000 }, (_, i) => i));
    const printed = stableJson(JSON.parse(wide) as unknown);
    expect(printed.cut).toBe(true);
    expect(printed.text.length).toBe(MAX_DIFF_CHARS + 1);
    const result = compareBodies(bytes(wide), bytes("[]"));
    expect(result.kind === "lines" && result.cut).toMatch(/^diff cut at/);
  });
});

describe("binary bodies", () => {
  it("compares sizes and SHA-256 digests instead of lines", () => {
    const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2]);
    const same = compareBodies(png, png.slice());
    expect(same).toMatchObject({ kind: "binary", equal: true, left: { size: 7 }, right: { size: 7 } });
    expect(same.kind === "binary" && same.left.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(compareBodies(png, bytes("text"))).toMatchObject({ kind: "binary", equal: false, right: { size: 4 } });
  });
});
