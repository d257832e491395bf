import { describe, expect, it } from "vitest";
import { MAX_OVERRIDE_HEADERS, parseReplayOverrides, UserError } from "../src/index.js";

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
    expect(refused({ query: "x" }).message).toMatch(/unknown field "query"/);
    expect(refused([1]).code).toBe("validation_failed");
  });
});
