import { describe, expect, it } from "vitest";
import { UsageError } from "../src/cli-error.js";
import { DEFAULT_DEDUP_WINDOW_S, dedupFromFlags } from "../src/dedup-option.js";

// --dedup, --dedup-window and --no-dedup read into an endpoint's dedup change, without a process.

describe("dedupFromFlags", () => {
  it("reads each key spelling, with the window given or a day", () => {
    expect(dedupFromFlags({ dedup: "auto" })).toEqual({ key: "auto", window_s: DEFAULT_DEDUP_WINDOW_S });
    expect(DEFAULT_DEDUP_WINDOW_S).toBe(86_400);
    expect(dedupFromFlags({ dedup: "body", "dedup-window": "60" })).toEqual({ key: "body", window_s: 60 });
    expect(dedupFromFlags({ dedup: "header:X-Delivery-Id" })).toEqual({ key: { header: "X-Delivery-Id" }, window_s: 86_400 });
    // Only the first colon splits: a path keeps its dots, a name anything after it.
    expect(dedupFromFlags({ dedup: "json:data.object.id", "dedup-window": "604800" })).toEqual({ key: { json: "data.object.id" }, window_s: 604_800 });
    expect(dedupFromFlags({ dedup: "json:a:b" })).toEqual({ key: { json: "a:b" }, window_s: 86_400 });
  });

  it("turns it off with --dedup off or --no-dedup, and leaves it alone when neither is given", () => {
    expect(dedupFromFlags({ dedup: "off" })).toBeNull();
    expect(dedupFromFlags({ "no-dedup": true })).toBeNull();
    expect(dedupFromFlags({ "no-dedup": true, dedup: "off" })).toBeNull();
    expect(dedupFromFlags({})).toBeUndefined();
    expect(dedupFromFlags({ "no-dedup": false })).toBeUndefined();
  });

  it("refuses what it cannot read, as a usage error naming the flag", () => {
    const refusals: Array<[Parameters<typeof dedupFromFlags>[0], RegExp]> = [
      [{ dedup: "delivery-id" }, /--dedup must be auto, body, header:NAME, json:PATH or off/],
      [{ dedup: "AUTO" }, /--dedup must be/],
      [{ dedup: "header:" }, /--dedup header: needs a header name/],
      [{ dedup: "json" }, /--dedup json: needs a dotted path/],
      [{ dedup: "auto", "dedup-window": "1h" }, /--dedup-window must be a whole number of seconds/],
      [{ dedup: "auto", "dedup-window": "-5" }, /--dedup-window must be a whole number/],
      [{ "dedup-window": "60" }, /--dedup-window needs --dedup/],
      [{ "no-dedup": true, dedup: "auto" }, /--dedup or --no-dedup, not both/],
      [{ dedup: "off", "dedup-window": "60" }, /not with turning it off/],
    ];
    for (const [flags, message] of refusals) {
      expect(() => dedupFromFlags(flags), JSON.stringify(flags)).toThrow(UsageError);
      expect(() => dedupFromFlags(flags), JSON.stringify(flags)).toThrow(message);
    }
  });
});
