import { describe, expect, it } from "vitest";
import { storableText, truncateText } from "../src/index.js";

describe("storable text", () => {
  it("replaces NUL and lone surrogates with U+FFFD and keeps everything else", () => {
    expect(storableText("a\u0000b")).toBe("a\uFFFDb");
    expect(storableText("\ud800")).toBe("\uFFFD");
    expect(storableText("x\udc00y")).toBe("x\uFFFDy");
    expect(storableText("\udc00\ud800")).toBe("\uFFFD\uFFFD"); // reversed halves are not a pair
    expect(storableText("rocket \u{1F680}, tab\t, é, ÿ")).toBe("rocket \u{1F680}, tab\t, é, ÿ");
    const plain = "invoice.paid";
    expect(storableText(plain)).toBe(plain);
  });
});

describe("truncated text", () => {
  it("cuts at the limit but never inside a surrogate pair", () => {
    expect(truncateText("abcdef", 3)).toBe("abc");
    expect(truncateText("ab\u{1F600}", 3)).toBe("ab");
    expect(truncateText("ab\u{1F600}", 4)).toBe("ab\u{1F600}");
    expect(truncateText("short", 200)).toBe("short");
  });
});
