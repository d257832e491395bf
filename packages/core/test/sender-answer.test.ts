import { describe, expect, it } from "vitest";
import { senderAnswerText } from "../src/browser.js";

describe("senderAnswerText", () => {
  it("says the status and how long the answer was held", () => {
    expect(senderAnswerText({ status: 202, delayMs: 300 })).toBe("Answered 202 after 300 ms");
    expect(senderAnswerText({ status: 200, delayMs: 0 })).toBe("Answered 200 at once");
    expect(senderAnswerText({ status: 503, delayMs: 1500 })).toBe("Answered 503 after 1.5 s");
    expect(senderAnswerText({ status: 200, delayMs: 30_000 })).toBe("Answered 200 after 30 s");
  });
});
