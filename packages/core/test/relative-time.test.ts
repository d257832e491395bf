import { describe, expect, it } from "vitest";
import { relativeTime } from "../src/index.js";

const now = new Date(Date.UTC(2026, 2, 15, 12, 0, 0));
const ago = (ms: number) => relativeTime(new Date(now.getTime() - ms), now);

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

describe("relative time", () => {
  it.each([
    [0, "just now"],
    [9_999, "just now"],
    [10 * SECOND, "10s ago"],
    [12 * SECOND, "12s ago"],
    [59_999, "59s ago"],
    [MINUTE, "1m ago"],
    [2 * MINUTE - 1, "1m ago"],
    [5 * MINUTE, "5m ago"],
    [HOUR - 1, "59m ago"],
    [HOUR, "1h ago"],
    [3 * HOUR + 59 * MINUTE, "3h ago"],
    [DAY - 1, "23h ago"],
    [DAY, "1d ago"],
    [2 * DAY, "2d ago"],
    [30 * DAY - 1, "29d ago"],
  ])("%i ms ago is %s", (ms, text) => {
    expect(ago(ms)).toBe(text);
  });

  it("shows the date from 30 days on", () => {
    expect(ago(30 * DAY)).toBe("2026-02-13");
    expect(relativeTime(new Date(Date.UTC(2025, 0, 5, 23, 59)), now)).toBe("2025-01-05");
  });

  it("uses the UTC date", () => {
    expect(relativeTime(new Date("2024-06-30T23:30:00-05:00"), now)).toBe("2024-07-01");
  });

  it("shows a time in the future (clock skew) as just now", () => {
    expect(ago(-1)).toBe("just now");
    expect(ago(-5 * MINUTE)).toBe("just now");
    expect(ago(-400 * DAY)).toBe("just now");
  });

  it("does not throw on an invalid date", () => {
    expect(relativeTime(new Date(Number.NaN), now)).toBe("unknown");
  });
});
