import { describe, expect, it } from "vitest";
import { apiKeyDigest, isWellFormedApiKey, issueApiKey } from "../src/index.js";

describe("API keys", () => {
  it("are pk_live_ plus 40 base62 characters, with a display prefix and a SHA-256 digest", () => {
    const issued = issueApiKey();
    expect(issued.key).toMatch(/^pk_live_[0-9A-Za-z]{40}$/);
    expect(issued.prefix).toBe(issued.key.slice(0, 12));
    expect(issued.digest).toEqual(apiKeyDigest(issued.key));
    expect(issued.digest).toHaveLength(32);
    expect(isWellFormedApiKey(issued.key)).toBe(true);
  });

  it("differ every time", () => {
    const keys = new Set(Array.from({ length: 1000 }, () => issueApiKey().key));
    expect(keys.size).toBe(1000);
  });

  it("refuse the wrong shape before any lookup", () => {
    const { key } = issueApiKey();
    expect(isWellFormedApiKey(key.slice(0, -9))).toBe(false); // too short
    expect(isWellFormedApiKey(key.replace("pk_live_", "pk_test_"))).toBe(false);
    expect(isWellFormedApiKey(`${key}!`)).toBe(false);
    expect(isWellFormedApiKey("")).toBe(false);
    // One character changed (to one it cannot already be) changes the digest.
    const last = key.slice(-1) === "x" ? "y" : "x";
    expect(apiKeyDigest(key)).not.toEqual(apiKeyDigest(`${key.slice(0, -1)}${last}`));
  });
});
