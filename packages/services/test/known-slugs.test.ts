import { describe, expect, it } from "vitest";
import { KnownSlugs, SlugLookupBusyError } from "../src/known-slugs.js";

/** An endpoints table in memory, recording each lookup's slugs; `hold` keeps lookups waiting until opened. */
function directory(initial: Record<string, string> = {}) {
  const endpoints = new Map(Object.entries(initial));
  const lookups: string[][] = [];
  let gate: Promise<void> = Promise.resolve();
  return {
    endpoints,
    lookups,
    asked: (slug: string) => lookups.flat().filter((asked) => asked === slug).length,
    hold() {
      let open!: () => void;
      gate = new Promise((resolve) => (open = resolve));
      return open;
    },
    lookup: async (slugs: readonly string[]) => {
      lookups.push([...slugs]);
      await gate;
      return new Map(slugs.filter((slug) => endpoints.has(slug)).map((slug) => [slug, endpoints.get(slug)!]));
    },
  };
}

describe("KnownSlugs", () => {
  it("answers a slug it has seen exist synchronously, without asking again", async () => {
    const db = directory({ "shop-abcd1234": "e1" });
    const slugs = new KnownSlugs({ lookup: db.lookup });
    expect(await slugs.exists("shop-abcd1234")).toBe(true);
    expect(slugs.exists("shop-abcd1234")).toBe(true);
    expect(db.lookups).toEqual([["shop-abcd1234"]]);
  });

  it("runs one lookup at a time: slugs that arrive meanwhile share the next, within maxBatch", async () => {
    const db = directory({ "a-aaaaaaaa": "e1", "c-cccccccc": "e3" });
    const slugs = new KnownSlugs({ lookup: db.lookup, maxBatch: 2 });
    const open = db.hold();
    const first = slugs.exists("a-aaaaaaaa");
    const again = slugs.exists("a-aaaaaaaa");
    const rest = ["b-bbbbbbbb", "c-cccccccc", "d-dddddddd"].map((slug) => slugs.exists(slug));
    expect(db.lookups).toEqual([["a-aaaaaaaa"]]);
    open();
    expect(await Promise.all([first, again, ...rest])).toEqual([true, true, false, true, false]);
    expect(db.lookups).toEqual([["a-aaaaaaaa"], ["b-bbbbbbbb", "c-cccccccc"], ["d-dddddddd"]]);
  });

  it("refuses to queue more than maxWaiting slugs", async () => {
    const db = directory();
    const slugs = new KnownSlugs({ lookup: db.lookup, maxWaiting: 2 });
    const open = db.hold();
    const waiting = [slugs.exists("a-aaaaaaaa"), slugs.exists("b-bbbbbbbb")];
    await expect(slugs.exists("c-cccccccc")).rejects.toThrow(SlugLookupBusyError);
    open();
    expect(await Promise.all(waiting)).toEqual([false, false]);
  });

  it("remembers unknown slugs for a while, at most maxUnknown of them", async () => {
    let now = 0;
    const db = directory();
    const slugs = new KnownSlugs({ lookup: db.lookup, maxUnknown: 2, unknownTtlMs: 1_000, now: () => now });
    expect(await slugs.exists("a-aaaaaaaa")).toBe(false);
    expect(slugs.exists("a-aaaaaaaa")).toBe(false);
    await slugs.exists("b-bbbbbbbb");
    await slugs.exists("c-cccccccc");
    expect(slugs.size.unknown).toBe(2);
    // The oldest was forgotten to make room: asked again.
    await slugs.exists("a-aaaaaaaa");
    expect(db.asked("a-aaaaaaaa")).toBe(2);
    now = 1_001;
    await slugs.exists("c-cccccccc");
    expect(db.asked("c-cccccccc")).toBe(2);
  });

  it("forgets unknown slugs when an endpoint is created, and a deleted endpoint's slug", async () => {
    const db = directory({ "shop-abcd1234": "e1" });
    const slugs = new KnownSlugs({ lookup: db.lookup });
    expect(await slugs.exists("new-zzzzzzzz")).toBe(false);
    db.endpoints.set("new-zzzzzzzz", "e2");
    slugs.endpointChanged("e2", "created");
    expect(await slugs.exists("new-zzzzzzzz")).toBe(true);

    expect(await slugs.exists("shop-abcd1234")).toBe(true);
    db.endpoints.delete("shop-abcd1234");
    slugs.endpointChanged("e1", "deleted");
    expect(await slugs.exists("shop-abcd1234")).toBe(false);
  });

  it("does not remember a lookup that raced with a change, and forgets everything on clear", async () => {
    const db = directory({ "shop-abcd1234": "e1" });
    const slugs = new KnownSlugs({ lookup: db.lookup });
    const open = db.hold();
    const racing = slugs.exists("shop-abcd1234");
    slugs.endpointChanged("e1", "deleted");
    open();
    expect(await racing).toBe(true);
    expect(slugs.size.known).toBe(0);

    expect(await slugs.exists("shop-abcd1234")).toBe(true);
    slugs.clear();
    expect(slugs.size).toEqual({ known: 0, unknown: 0, waiting: 0 });
  });

  it("keeps at most maxKnown slugs, forgetting the oldest learnt", async () => {
    const db = directory({ "a-aaaaaaaa": "e1", "b-bbbbbbbb": "e2", "c-cccccccc": "e3" });
    const slugs = new KnownSlugs({ lookup: db.lookup, maxKnown: 2 });
    for (const slug of ["a-aaaaaaaa", "b-bbbbbbbb", "c-cccccccc"]) await slugs.exists(slug);
    expect(slugs.size.known).toBe(2);
    expect(slugs.exists("c-cccccccc")).toBe(true);
    expect(await slugs.exists("a-aaaaaaaa")).toBe(true);
    expect(db.asked("a-aaaaaaaa")).toBe(2);
  });

  it("rejects every capture of a failed lookup, and asks again next time", async () => {
    let fail = true;
    const slugs = new KnownSlugs({
      lookup: async (asked) => {
        if (fail) throw new Error("database away");
        return new Map(asked.map((slug) => [slug, "e1"]));
      },
    });
    await expect(slugs.exists("shop-abcd1234")).rejects.toThrow("database away");
    fail = false;
    expect(await slugs.exists("shop-abcd1234")).toBe(true);
  });
});
