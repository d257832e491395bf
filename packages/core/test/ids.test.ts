import { describe, expect, it } from "vitest";
import { isUuid, uuidv7, uuidv7Timestamp, uuidVersion } from "../src/index.js";

describe("uuidv7", () => {
  it("is a version 7, RFC 9562 variant UUID", () => {
    const id = uuidv7();
    expect(isUuid(id)).toBe(true);
    expect(uuidVersion(id)).toBe(7);
    expect(["8", "9", "a", "b"]).toContain(id.charAt(19));
  });

  it("embeds its creation time in milliseconds", () => {
    const now = Date.UTC(2026, 10, 21, 10, 15, 30, 123);
    expect(uuidv7Timestamp(uuidv7(now)).toISOString()).toBe("2026-11-21T10:15:30.123Z");
  });

  it("sorts in creation order, even many times within one millisecond", () => {
    const ids = Array.from({ length: 5000 }, () => uuidv7(1_790_000_000_000));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("never goes backwards when the clock does", () => {
    const later = uuidv7(1_800_000_000_000);
    const earlierClock = uuidv7(1_700_000_000_000);
    expect(earlierClock > later).toBe(true);
  });
});
