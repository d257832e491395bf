import { describe, expect, it } from "vitest";
import { searchPatterns } from "../src/index.js";

describe("search patterns", () => {
  it("write the text as encode(body, 'escape') writes its bytes, wildcards and backslashes taken literally", () => {
    expect(searchPatterns("Invoice.paid")).toEqual({ body: "%Invoice.paid%", header: "%Invoice.paid%" });
    expect(searchPatterns("50%_off")).toEqual({ body: "%50\\%\\_off%", header: "%50\\%\\_off%" });
    // A backslash is doubled by encode(), then escaped for LIKE: four in the body pattern.
    expect(searchPatterns("a\\b").body).toBe("%a\\\\\\\\b%");
    expect(searchPatterns("a\\b").header).toBe("%a\\\\b%");
    // é is C3 A9 in UTF-8: octal escapes in the body's form (each backslash escaped for LIKE).
    expect(searchPatterns("é").body).toBe("%\\\\303\\\\251%");
    expect(searchPatterns("é").header).toBe("%é%");
  });
});
