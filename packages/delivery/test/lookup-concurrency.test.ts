import type { LookupAddress, lookup as realLookup } from "node:dns";
import { describe, expect, it } from "vitest";
import { MAX_CONCURRENT_LOOKUPS, safeLookup } from "../src/safe-agent.js";

type Answer = (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void;

/** A resolver that answers only when told: each pending lookup waits in `pending`. */
function heldResolver() {
  const pending: Answer[] = [];
  let running = 0;
  let mostRunning = 0;
  const lookup = (_hostname: string, _options: unknown, callback: Answer) => {
    running += 1;
    mostRunning = Math.max(mostRunning, running);
    pending.push((error, addresses) => {
      running -= 1;
      callback(error, addresses);
    });
  };
  return {
    lookup: lookup as unknown as typeof realLookup,
    pending,
    get mostRunning() {
      return mostRunning;
    },
  };
}

const closed = { allowPrivate: false };

function resolveAll(lookup: ReturnType<typeof safeLookup>, count: number): Array<Promise<string>> {
  return Array.from(
    { length: count },
    (_, i) =>
      new Promise<string>((resolve, reject) =>
        lookup(`host-${i}.example.com`, {}, (error, address) => (error ? reject(error) : resolve(address as string))),
      ),
  );
}

describe("DNS lookups in a delivery thread", () => {
  it(`run at most ${MAX_CONCURRENT_LOOKUPS} at once; the rest wait their turn and all are answered`, async () => {
    expect(MAX_CONCURRENT_LOOKUPS).toBe(4);
    const dns = heldResolver();
    const answers = resolveAll(safeLookup(closed, dns.lookup), MAX_CONCURRENT_LOOKUPS * 3);
    expect(dns.pending).toHaveLength(MAX_CONCURRENT_LOOKUPS);

    // Each answer frees a slot for exactly one waiting lookup (which starts on the next turn).
    for (let answered = 0; answered < MAX_CONCURRENT_LOOKUPS * 3; answered += 1) {
      await new Promise((resolve) => setImmediate(resolve));
      dns.pending.shift()!(null, [{ address: "93.184.215.14", family: 4 }]);
      expect(dns.pending.length).toBeLessThanOrEqual(MAX_CONCURRENT_LOOKUPS);
    }
    expect(await Promise.all(answers)).toEqual(Array(MAX_CONCURRENT_LOOKUPS * 3).fill("93.184.215.14"));
    expect(dns.mostRunning).toBe(MAX_CONCURRENT_LOOKUPS);
  });

  it("free their slot when they fail or throw, and still fail closed", async () => {
    const dns = heldResolver();
    const failing = resolveAll(safeLookup(closed, dns.lookup), MAX_CONCURRENT_LOOKUPS);
    for (const answer of dns.pending.splice(0)) {
      const error: NodeJS.ErrnoException = new Error("getaddrinfo EAI_AGAIN");
      error.code = "EAI_AGAIN";
      answer(error, []);
    }
    await Promise.all(failing.map((answer) => expect(answer).rejects.toMatchObject({ code: "EAI_AGAIN" })));

    const throwing = (() => {
      throw new TypeError("invalid hostname");
    }) as unknown as typeof realLookup;
    await Promise.all(resolveAll(safeLookup(closed, throwing), MAX_CONCURRENT_LOOKUPS * 2).map((answer) => expect(answer).rejects.toThrow("invalid hostname")));

    // Every slot is free again: a full set of new lookups starts at once.
    const after = heldResolver();
    const answers = resolveAll(safeLookup(closed, after.lookup), MAX_CONCURRENT_LOOKUPS);
    expect(after.pending).toHaveLength(MAX_CONCURRENT_LOOKUPS);
    for (const answer of after.pending.splice(0)) answer(null, [{ address: "93.184.215.14", family: 4 }]);
    await Promise.all(answers);
  });
});
