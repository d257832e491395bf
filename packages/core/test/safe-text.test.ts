import { describe, expect, it } from "vitest";
import { endpointNameSchema, isStorableText, safeText, storableText, truncateText } from "../src/index.js";

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

describe("storable text inputs", () => {
  it("tells text PostgreSQL stores as is from text with NUL or an unpaired surrogate", () => {
    for (const good of ["", "invoice.paid", "rocket \u{1F680}", "tab\tand\nline", "\uFFFD", "é ÿ 中"]) expect(isStorableText(good), JSON.stringify(good)).toBe(true);
    for (const bad of ["\u0000", "a\u0000b", "\ud800", "x\udc00y", "\udc00\ud800", "ok \u{1F680} \ud83d"]) expect(isStorableText(bad), JSON.stringify(bad)).toBe(false);
    // The same answer every time (no regex state carried between calls).
    expect([isStorableText("a\u0000"), isStorableText("a\u0000"), isStorableText("a\u0000")]).toEqual([false, false, false]);
  });

  it("refuses such text in a schema with the field's name, before the field's own rules", () => {
    const withName = safeText("q").min(1).max(5).safeParse("a\u0000b");
    expect(withName.success).toBe(false);
    expect(withName.error!.issues[0]!.message).toBe("q must not contain NUL characters or unpaired surrogates (U+D800–U+DFFF)");
    const byPath = endpointNameSchema.safeParse("\ud800 orders");
    expect(byPath.error!.issues[0]!.message).toBe("must not contain NUL characters or unpaired surrogates (U+D800–U+DFFF)");
    expect(endpointNameSchema.parse("  Orders \u{1F680} ")).toBe("Orders \u{1F680}");
  });
});
