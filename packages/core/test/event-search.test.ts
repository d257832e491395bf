import { describe, expect, it } from "vitest";
import { searchPatterns } from "../src/index.js";

describe("search patterns", () => {
  it("read the text's UTF-8 bytes as Latin-1, with wildcards and backslashes taken literally", () => {
    expect(searchPatterns("Invoice.paid")).toEqual({ body: "%Invoice.paid%", escapedBody: "%Invoice.paid%", headers: "%Invoice.paid%" });
    expect(searchPatterns("50%_off")).toMatchObject({ body: "%50\\%\\_off%", headers: "%50\\%\\_off%" });
    // é is C3 A9 in UTF-8: the two Latin-1 characters those bytes are.
    expect(searchPatterns("é").body).toBe("%\u00c3\u00a9%");
    // In a body's escape form (bodies with a NUL byte) the same bytes are octal escapes, each backslash escaped for LIKE.
    expect(searchPatterns("é").escapedBody).toBe("%\\\\303\\\\251%");
    expect(searchPatterns("a\\b").escapedBody).toBe("%a\\\\\\\\b%");
    // In the headers' JSON a backslash and a quote are escaped; LIKE escapes the backslashes again.
    expect(searchPatterns('a\\b"c').headers).toBe('%a\\\\\\\\b\\\\"c%');
  });
});
