import { describe, expect, it } from "vitest";
import { createUuidV7Generator, isUuid, uuidv7, uuidv7Timestamp, uuidVersion } from "../src/index.js";

describe("uuidv7", () => {
  it("is a version 7, RFC 9562 variant UUID", () => {
    const id = uuidv7();
    expect(isUuid(id)).toBe(true);
    expect(uuidVersion(id)).toBe(7);
    expect(["8", "9", "a", "b"]).toContain(id.charAt(19));
  });

  it("embeds its creation time in milliseconds", () => {
    // A fresh generator: the process-wide one may already have minted ids at a later real time.
    const next = createUuidV7Generator();
    const now = Date.UTC(2026, 10, 21, 10, 15, 30, 123);
    expect(uuidv7Timestamp(next(now)).toISOString()).toBe("2026-11-21T10:15:30.123Z");
  });

  it("reads the injected clock when no time is given", () => {
    const next = createUuidV7Generator(() => Date.UTC(2001, 0, 2, 3, 4, 5, 6));
    expect(uuidv7Timestamp(next()).toISOString()).toBe("2001-01-02T03:04:05.006Z");
  });

  it("sorts in creation order, even many times within one millisecond", () => {
    const next = createUuidV7Generator();
    const ids = Array.from({ length: 5000 }, () => next(1_790_000_000_000));
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("never goes backwards when the clock does", () => {
    const next = createUuidV7Generator();
    const later = next(1_800_000_000_000);
    const earlierClock = next(1_700_000_000_000);
    expect(earlierClock > later).toBe(true);
  });

  it("keeps each generator's order to itself", () => {
    const first = createUuidV7Generator();
    first(1_800_000_000_000);
    const second = createUuidV7Generator();
    expect(uuidv7Timestamp(second(1_700_000_000_000)).getTime()).toBe(1_700_000_000_000);
  });
});
