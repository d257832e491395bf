import { describe, expect, it } from "vitest";
import { downloadContentType } from "../src/index.js";

describe("the raw download's Content-Type", () => {
  it("is the stored one, parameters and case kept", () => {
    expect(downloadContentType("application/json; charset=utf-8")).toBe("application/json; charset=utf-8");
    expect(downloadContentType("Text/Plain")).toBe("Text/Plain");
    expect(downloadContentType('multipart/form-data; boundary="a b"')).toBe('multipart/form-data; boundary="a b"');
  });

  it("is application/octet-stream when there is none or it is not a well-formed header value", () => {
    for (const stored of [null, "", "json", "text/plain\r\nx-evil: 1", "text/plain; name=é", "a/b c", `text/plain; ${"x".repeat(600)}`]) {
      expect(downloadContentType(stored), String(stored)).toBe("application/octet-stream");
    }
  });

  it("is application/octet-stream for types a page could load as a script or stylesheet", () => {
    for (const stored of ["application/javascript", "TEXT/JAVASCRIPT; charset=utf-8", "application/x-javascript", "text/ecmascript", "text/jscript", "text/css"]) {
      expect(downloadContentType(stored), stored).toBe("application/octet-stream");
    }
    expect(downloadContentType("application/json")).toBe("application/json");
  });
});
