import { describe, expect, it } from "vitest";
import { AttemptLimiter } from "../src/index.js";

describe("failed-attempt limiter", () => {
  it("allows up to the limit within the window, then refuses until the oldest failure leaves it", () => {
    let now = 1_000_000;
    const limiter = new AttemptLimiter({ maxFailures: 3, windowMs: 60_000, now: () => now });
    for (let i = 0; i < 3; i += 1) {
      expect(limiter.check("email:a@example.com")).toEqual({ allowed: true });
      limiter.recordFailure("email:a@example.com");
      now += 1_000;
    }
    expect(limiter.check("email:a@example.com")).toEqual({ allowed: false, retryAfterMs: 57_000 });
    expect(limiter.check("email:b@example.com")).toEqual({ allowed: true });
    now += 57_000;
    expect(limiter.check("email:a@example.com")).toEqual({ allowed: true });
  });

  it("forgets a key's failures on reset (a successful login)", () => {
    const limiter = new AttemptLimiter({ maxFailures: 1, windowMs: 60_000 });
    limiter.recordFailure("k");
    expect(limiter.check("k").allowed).toBe(false);
    limiter.reset("k");
    expect(limiter.check("k").allowed).toBe(true);
  });
});
