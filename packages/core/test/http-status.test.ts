import { describe, expect, it } from "vitest";
import { httpTone, reasonPhrase } from "../src/http-status.js";

describe("HTTP status words and colours", () => {
  it("uses the standard reason phrase", () => {
    expect(reasonPhrase(202)).toBe("Accepted");
    expect(reasonPhrase(200)).toBe("OK");
    expect(reasonPhrase(301)).toBe("Moved Permanently");
    expect(reasonPhrase(500)).toBe("Internal Server Error");
  });

  it("names the class of a code without a phrase", () => {
    expect(reasonPhrase(299)).toBe("Success");
    expect(reasonPhrase(499)).toBe("Client Error");
    expect(reasonPhrase(599)).toBe("Server Error");
  });

  it("colours by class", () => {
    expect([200, 204, 302, 404, 500].map(httpTone)).toEqual(["ok", "ok", "warn", "fail", "fail"]);
  });
});
