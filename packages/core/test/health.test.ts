import { describe, expect, it } from "vitest";
import { endpointHealth } from "../src/index.js";

describe("endpoint health", () => {
  it.each([
    [0, 0, "capturing"],
    [10, 0, "healthy"],
    [9, 1, "healthy"], // exactly 90%
    [899, 101, "degraded"], // 89.9%
    [1, 1, "degraded"], // exactly 50%
    [499, 501, "unhealthy"], // 49.9%
    [0, 5, "unhealthy"],
  ])("%i delivered, %i failed: %s", (delivered, failed, state) => {
    expect(endpointHealth(delivered, failed).state).toBe(state);
  });

  it("reports the success rate, or null before any terminal outcome", () => {
    expect(endpointHealth(0, 0).successRate).toBeNull();
    expect(endpointHealth(3, 1).successRate).toBe(0.75);
  });
});
