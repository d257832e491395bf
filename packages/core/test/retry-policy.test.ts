import { describe, expect, it } from "vitest";
import {
  forwardingPausedMessage,
  nominalRetryDelay,
  parseRetryAfter,
  RETRY_PRESETS,
  retryDelay,
  retryPolicyProblem,
  type RetryPolicy,
} from "../src/index.js";

const NOW = Date.parse("2030-01-01T00:00:00Z");
const policy: RetryPolicy = { maxAttempts: 5, initialDelayMs: 1_000, maxDelayMs: 5_000 };
const failed = (attempt: number, responseStatus: number | null = 500, retryAfter: string | null = null) => ({ attempt, responseStatus, retryAfter });
const middle = () => 0.5;

describe("retry policy", () => {
  it("makes exactly one attempt without a policy", () => {
    expect(retryDelay(null, failed(1), middle, NOW)).toBeNull();
  });

  it("doubles the nominal delay from the initial one up to the cap, and stops after the last attempt", () => {
    expect([1, 2, 3, 4].map((n) => retryDelay(policy, failed(n), middle, NOW))).toEqual([1_000, 2_000, 4_000, 5_000]);
    expect(retryDelay(policy, failed(5), middle, NOW)).toBeNull();
    expect(retryDelay(policy, failed(9), middle, NOW)).toBeNull();
  });

  it("jitters ±20 % around the nominal delay, never past max_delay_ms", () => {
    expect(retryDelay(policy, failed(1), () => 0, NOW)).toBe(800);
    expect(retryDelay(policy, failed(1), () => 0.999_999, NOW)).toBe(1_200);
    expect(retryDelay(policy, failed(4), () => 0.999_999, NOW)).toBe(5_000);
    expect(retryDelay(policy, failed(4), () => 0, NOW)).toBe(4_000);
  });

  it("honours Retry-After on 429 and 503, in seconds or as an HTTP date, capped at max(max_delay_ms, 1 h)", () => {
    expect(retryDelay(policy, failed(1, 429, "120"), middle, NOW)).toBe(120_000);
    expect(retryDelay(policy, failed(1, 503, new Date(NOW + 30_000).toUTCString()), middle, NOW)).toBe(30_000);
    expect(retryDelay(policy, failed(1, 503, "86400"), middle, NOW)).toBe(3_600_000);
    const long = { ...policy, maxDelayMs: 7_200_000 };
    expect(retryDelay(long, failed(1, 429, "86400"), middle, NOW)).toBe(7_200_000);
    // Other statuses, or an unreadable header: the backoff.
    expect(retryDelay(policy, failed(1, 500, "120"), middle, NOW)).toBe(1_000);
    expect(retryDelay(policy, failed(1, 429, "soon"), middle, NOW)).toBe(1_000);
    // Not after the last attempt, whatever the destination asks.
    expect(retryDelay(policy, failed(5, 429, "1"), middle, NOW)).toBeNull();
  });

  it("reads Retry-After dates in the past as now", () => {
    expect(parseRetryAfter(new Date(NOW - 5_000).toUTCString(), NOW)).toBe(0);
    expect(parseRetryAfter(" 3 ", NOW)).toBe(3_000);
    expect(parseRetryAfter("-1", NOW)).toBeNull();
    expect(parseRetryAfter(null, NOW)).toBeNull();
  });

  it("has presets whose nominal delays add up to what their labels say", () => {
    const total = (p: RetryPolicy) => Array.from({ length: p.maxAttempts - 1 }, (_, i) => nominalRetryDelay(p, i + 1)).reduce((a, b) => a + b, 0);
    const [none, hour, day] = RETRY_PRESETS;
    expect(none!.policy).toBeNull();
    expect(hour!.policy!.maxAttempts).toBe(5);
    expect(total(hour!.policy!)).toBe(3_600_000);
    expect(day!.policy!.maxAttempts).toBe(8);
    expect(total(day!.policy!)).toBe(86_400_000);
    for (const preset of RETRY_PRESETS) if (preset.policy) expect(retryPolicyProblem(preset.policy)).toBeNull();
  });

  it("refuses policies out of bounds with the field named", () => {
    expect(retryPolicyProblem({ ...policy, maxAttempts: 21 })).toMatch(/max_attempts/);
    expect(retryPolicyProblem({ ...policy, maxAttempts: 0 })).toMatch(/max_attempts/);
    expect(retryPolicyProblem({ ...policy, initialDelayMs: 99 })).toMatch(/initial_delay_ms/);
    expect(retryPolicyProblem({ ...policy, maxDelayMs: 500 })).toMatch(/max_delay_ms/);
  });
});

describe("forwarding paused message", () => {
  it("names the endpoint and the reason, links to the endpoint, and keeps Block Kit limits", () => {
    const message = forwardingPausedMessage(
      [{ endpointName: "stripe <prod>", destinationUrl: "https://example.com", reason: "5 consecutive failed attempts (last: destination answered 503)", at: new Date(NOW) }],
      "https://rehook.example.com/endpoints/1",
    );
    expect(message.text).toBe("Forwarding Paused: stripe <prod>: 5 consecutive failed attempts (last: destination answered 503)");
    const json = JSON.stringify(message.blocks);
    expect(json).toContain("stripe &lt;prod&gt;");
    expect(json).toContain("https://rehook.example.com/endpoints/1");
    expect(json).toContain("2030-01-01 00:00:00 UTC");
  });
});
