import { describe, expect, it } from "vitest";
import { AttemptLimiter, LoginThrottle } from "../src/index.js";

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

describe("login throttle", () => {
  const limits = { windowMs: 60_000, perEmailAndAddress: 3, perEmail: 5, perAddress: 8 };

  it("counts an attempt when it begins, so concurrent attempts cannot all pass the check", () => {
    const throttle = new LoginThrottle(limits, () => 1_000);
    const verdicts = Array.from({ length: 5 }, () => throttle.begin("a@example.com", "192.0.2.1"));
    expect(verdicts.map((verdict) => verdict.allowed)).toEqual([true, true, true, false, false]);
  });

  it("takes a right password back and clears that address's count for the email", () => {
    const throttle = new LoginThrottle(limits, () => 1_000);
    throttle.begin("a@example.com", "192.0.2.1");
    throttle.begin("a@example.com", "192.0.2.1");
    const right = throttle.begin("a@example.com", "192.0.2.1");
    expect(right.allowed).toBe(true);
    if (right.allowed) right.succeeded();
    expect(throttle.begin("a@example.com", "192.0.2.1").allowed).toBe(true);
  });

  it("lets a clean address through to an email under attack, but not one that has failed", () => {
    const throttle = new LoginThrottle(limits, () => 1_000);
    for (let i = 0; i < 5; i += 1) throttle.begin("victim@example.com", `198.51.100.${i}`);
    expect(throttle.begin("victim@example.com", "198.51.100.0").allowed).toBe(false);
    expect(throttle.begin("victim@example.com", "203.0.113.9").allowed).toBe(true);
    expect(throttle.begin("victim@example.com", "203.0.113.9").allowed).toBe(false);
  });

  it("stops one address guessing across emails only at its own, higher limit", () => {
    let now = 1_000;
    const throttle = new LoginThrottle(limits, () => now);
    for (let i = 0; i < 8; i += 1) expect(throttle.begin(`user${i}@example.com`, "192.0.2.7").allowed).toBe(true);
    const refused = throttle.begin("someone@example.com", "192.0.2.7");
    expect(refused).toEqual({ allowed: false, retryAfterMs: 60_000 });
    now += 60_001;
    expect(throttle.begin("someone@example.com", "192.0.2.7").allowed).toBe(true);
  });
});

describe("an abandoned login attempt", () => {
  it("is taken back: a busy server does not mark the address as having failed", () => {
    const throttle = new LoginThrottle({ windowMs: 60_000, perEmailAndAddress: 3, perEmail: 1, perAddress: 8 }, () => 1_000);
    const attacker = throttle.begin("victim@example.com", "198.51.100.1");
    expect(attacker.allowed).toBe(true);
    const busy = throttle.begin("victim@example.com", "203.0.113.9");
    expect(busy.allowed).toBe(true); // a clean address may still try the locked email
    if (busy.allowed) busy.abandoned();
    expect(throttle.begin("victim@example.com", "203.0.113.9").allowed).toBe(true);
  });
});
