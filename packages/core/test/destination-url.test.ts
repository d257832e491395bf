import { describe, expect, it } from "vitest";
import { checkDestinationSyntax } from "../src/index.js";

describe("destination URL syntax", () => {
  it("accepts absolute http and https URLs", () => {
    expect(checkDestinationSyntax(" https://example.com/hooks ")).toEqual({ ok: true, url: "https://example.com/hooks" });
  });

  it.each([
    ["not a url", /valid absolute URL/],
    ["file:///etc/passwd", /scheme file/],
    ["ftp://example.com/", /scheme ftp/],
    ["http://u:p@example.com/", /credentials/],
  ])("refuses %s", (raw, reason) => {
    const checked = checkDestinationSyntax(raw);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.reason).toMatch(reason);
  });
});
