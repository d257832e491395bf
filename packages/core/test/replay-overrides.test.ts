import { describe, expect, it } from "vitest";
import { editedReplayTarget, hasOverrides, MAX_OVERRIDE_HEADERS, MAX_OVERRIDE_PATH_LENGTH, MAX_OVERRIDE_QUERY_LENGTH, parseReplayOverrides, UserError, type ReplaySource } from "../src/index.js";

const refused = (input: unknown, maxBodyBytes = 1024): UserError => {
  try {
    parseReplayOverrides(input, maxBodyBytes);
  } catch (error) {
    if (error instanceof UserError) return error;
    throw error;
  }
  throw new Error("accepted");
};

describe("parseReplayOverrides", () => {
  it("means a plain replay when absent", () => {
    expect(parseReplayOverrides(undefined, 10)).toBeNull();
    expect(parseReplayOverrides(null, 10)).toBeNull();
  });

  it("keeps the parts given: method, the whole header list in order, text or base64 bytes", () => {
    expect(parseReplayOverrides({ method: "PATCH", headers: [["X-A", "1"], ["x-a", "2\tthree"]], body: "héllo" }, 100)).toEqual({
      method: "PATCH",
      headers: [["X-A", "1"], ["x-a", "2\tthree"]],
      body: Buffer.from("héllo", "utf8"),
    });
    expect(parseReplayOverrides({ body_base64: "AP8=" }, 100)).toEqual({ body: Buffer.from([0x00, 0xff]) });
    expect(parseReplayOverrides({ headers: [], body: "" }, 100)).toEqual({ headers: [], body: Buffer.alloc(0) });
  });

  it("refuses CR, LF, NUL and other controls in values, bad names, too many headers", () => {
    for (const value of ["a\rb", "a\nb", "a\u0000b"]) expect(refused({ headers: [["X-A", value]] }).message).toMatch(/line break or NUL/);
    expect(refused({ headers: [["X-A", "bell\u0007"]] }).message).toMatch(/control character/);
    expect(refused({ headers: [["X:A", "v"]] }).message).toMatch(/invalid name/);
    expect(refused({ headers: [["X-A"]] }).message).toMatch(/pair of two strings/);
    expect(refused({ headers: Array.from({ length: MAX_OVERRIDE_HEADERS + 1 }, () => ["X", "v"]) }).message).toMatch(/at most 100 headers/);
  });

  it("refuses body with body_base64, broken base64, a body over the limit, odd methods and unknown fields", () => {
    expect(refused({ body: "a", body_base64: "YQ==" }).message).toBe("Give either body or body_base64, not both.");
    expect(refused({ body_base64: "YQ" }).message).toMatch(/standard base64/);
    const big = refused({ body: "x".repeat(11) }, 10);
    expect([big.code, big.message]).toEqual(["payload_too_large", "The edited body exceeds the limit of 10 bytes. Send a smaller one."]);
    expect(refused({ method: "TRACE" }).message).toMatch(/cannot be replayed/);
    expect(refused({ method: "PO ST" }).message).toMatch(/HTTP method name/);
    expect(refused({ url: "x" }).message).toMatch(/unknown field "url"/);
    expect(refused([1]).code).toBe("validation_failed");
  });
});

describe("path and query overrides", () => {
  it("keeps a sub-path starting with / and a raw query (a leading ? dropped); empty means none", () => {
    expect(parseReplayOverrides({ path: "/github/push", query: "?a=1&b=%20" }, 10)).toEqual({ path: "/github/push", query: "a=1&b=%20" });
    expect(parseReplayOverrides({ path: "", query: "" }, 10)).toEqual({ path: "", query: "" });
    expect(hasOverrides(parseReplayOverrides({ query: "" }, 10))).toBe(true);
    expect(hasOverrides(parseReplayOverrides({}, 10))).toBe(false);
  });

  it("refuses a path without a leading /, with CR, LF or other controls, ? or #, dot segments, or too long", () => {
    expect(refused({ path: "github" }).message).toMatch(/starting with "\/"/);
    expect(refused({ path: 7 }).message).toMatch(/starting with "\/"/);
    for (const path of ["/a\r\nHost: evil", "/a\nb", "/a\u0000", "/a\tb"]) expect(refused({ path }).message, JSON.stringify(path)).toMatch(/control character/);
    expect(refused({ path: "/a?b=1" }).message).toMatch(/"\?" or "#"/);
    expect(refused({ path: "/a#b" }).message).toMatch(/"\?" or "#"/);
    for (const path of ["/../admin", "/a/%2e%2e/b", "/.."]) expect(refused({ path }).message, path).toMatch(/dot|"\.\."/);
    expect(refused({ path: `/${"a".repeat(MAX_OVERRIDE_PATH_LENGTH)}` }).message).toMatch(/longer than 2048/);
    expect(parseReplayOverrides({ path: `/${"a".repeat(MAX_OVERRIDE_PATH_LENGTH - 1)}` }, 10)?.path).toHaveLength(MAX_OVERRIDE_PATH_LENGTH);
  });

  it("refuses a query with CR, LF or other controls, #, a non-string, or too long", () => {
    for (const query of ["a=1\r\nX-Evil: 1", "a=\n", "a\u0000"]) expect(refused({ query }).message, JSON.stringify(query)).toMatch(/control character/);
    expect(refused({ query: "a=1#frag" }).message).toMatch(/"#"/);
    expect(refused({ query: ["a"] }).message).toMatch(/must be text/);
    expect(refused({ query: "q".repeat(MAX_OVERRIDE_QUERY_LENGTH + 1) }).message).toMatch(/longer than 8192/);
  });
});

describe("editedReplayTarget", () => {
  const source: ReplaySource = { destinationUrl: "https://api.example.com/hooks?v=2", stagingHost: "staging.example.com", path: "/github/push", query: "a=1" };

  it("without path or query edits: the plain replay target", () => {
    expect(editedReplayTarget("original", source, null)).toEqual({ ok: true, url: "https://api.example.com/hooks/github/push?v=2&a=1" });
    expect(editedReplayTarget("custom", source, "https://elsewhere.example/in?k=1", {})).toEqual({ ok: true, url: "https://elsewhere.example/in?k=1" });
  });

  it("replaces the captured sub-path and query on the destination, as forwarding appends them", () => {
    expect(editedReplayTarget("original", source, null, { path: "/stripe/charge", query: "b=2" })).toEqual({ ok: true, url: "https://api.example.com/hooks/stripe/charge?v=2&b=2" });
    expect(editedReplayTarget("original", source, null, { path: "" })).toEqual({ ok: true, url: "https://api.example.com/hooks?v=2&a=1" });
    expect(editedReplayTarget("original", source, null, { query: "" })).toEqual({ ok: true, url: "https://api.example.com/hooks/github/push?v=2" });
    expect(editedReplayTarget("staging", source, null, { path: "/x" })).toEqual({ ok: true, url: "https://staging.example.com/hooks/x?v=2&a=1" });
  });

  it("appends an edited path and query to a custom URL", () => {
    expect(editedReplayTarget("custom", source, "https://elsewhere.example/in?k=1", { path: "/y", query: "c=3" })).toEqual({ ok: true, url: "https://elsewhere.example/in/y?k=1&c=3" });
    expect(editedReplayTarget("custom", source, null, { path: "/y" })).toMatchObject({ ok: false, kind: "invalid" });
  });
});
