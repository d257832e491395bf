import type { LookupAddress } from "node:dns";
import { lookup as realLookup } from "node:dns";
import { describe, expect, it } from "vitest";
import { checkDestination } from "../src/index.js";

/** DNS answers from a table, standing in for the outside world's name servers. */
function answering(table: Record<string, string[]>): typeof realLookup {
  const lookup = (hostname: string, _options: unknown, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => {
    const addresses = table[hostname];
    if (!addresses) {
      const error: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
      error.code = "ENOTFOUND";
      return callback(error, []);
    }
    callback(null, addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 })));
  };
  return lookup as unknown as typeof realLookup;
}

const dns = answering({
  "hooks.example.com": ["93.184.215.14"],
  "internal.example.com": ["10.0.0.7"],
  "rebind.example.com": ["127.0.0.1", "::1"],
  "mixed.example.com": ["10.0.0.7", "93.184.215.14"],
  "metadata.example.com": ["169.254.169.254"],
});
const closed = { allowPrivate: false };

describe("save-time destination check", () => {
  it("accepts a name that resolves to a public address", async () => {
    expect(await checkDestination("https://hooks.example.com/in", closed, dns)).toEqual({ ok: true, url: "https://hooks.example.com/in" });
  });

  it("refuses a name that resolves only to private or loopback addresses, naming host and range", async () => {
    const internal = await checkDestination("https://internal.example.com/in", closed, dns);
    expect(internal).toEqual({ ok: false, reason: expect.stringMatching(/^internal\.example\.com: blocked: private .*10\.0\.0\.7/) });
    const rebind = await checkDestination("http://rebind.example.com/", closed, dns);
    expect(rebind).toEqual({ ok: false, reason: expect.stringMatching(/^rebind\.example\.com: blocked: loopback/) });
  });

  it("accepts a name with at least one public address (the connection uses only those)", async () => {
    expect((await checkDestination("https://mixed.example.com/", closed, dns)).ok).toBe(true);
  });

  it("opens private names with ALLOW_PRIVATE_DESTINATIONS, but never cloud metadata", async () => {
    const open = { allowPrivate: true };
    expect((await checkDestination("https://internal.example.com/", open, dns)).ok).toBe(true);
    const metadata = await checkDestination("https://metadata.example.com/", open, dns);
    expect(metadata).toEqual({ ok: false, reason: expect.stringContaining("169.254.169.254") });
  });

  it("accepts a name that does not resolve now: the connect-time check decides then", async () => {
    expect((await checkDestination("https://not-yet.example.com/", closed, dns)).ok).toBe(true);
  });

  it("keeps the syntax and literal-address rules", async () => {
    expect(await checkDestination("ftp://hooks.example.com/", closed, dns)).toEqual({ ok: false, reason: expect.stringContaining("scheme ftp") });
    expect((await checkDestination("http://127.0.0.1:9/", closed, dns)).ok).toBe(false);
    expect((await checkDestination("http://localhost:3000/", closed, dns)).ok).toBe(false);
  });
});
