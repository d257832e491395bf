import type { LookupAddress } from "node:dns";
import { lookup as realLookup } from "node:dns";
import { describe, expect, it } from "vitest";
import { checkDestination, safeLookup } from "../src/index.js";

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
  "ecs.example.com": ["169.254.170.2"],
  "wireserver.example.com": ["168.63.129.16"],
  "imds6.example.com": ["fd00:ec2::254"],
  "siit.example.com": ["::ffff:0:7f00:1"],
  "loopback.example.com": ["127.0.0.1"],
});
const closed = { allowPrivate: false };

describe("save-time destination check", () => {
  it("accepts a name that resolves to a public address", async () => {
    expect(await checkDestination("https://hooks.example.com/in", closed, dns)).toEqual({ ok: true, url: "https://hooks.example.com/in" });
  });

  it("refuses a name that resolves only to private or loopback addresses, naming host and kind but not the address", async () => {
    const internal = await checkDestination("https://internal.example.com/in", closed, dns);
    expect(internal).toEqual({ ok: false, reason: "internal.example.com: blocked: private network address" });
    const rebind = await checkDestination("http://rebind.example.com/", closed, dns);
    expect(rebind).toEqual({ ok: false, reason: "rebind.example.com: blocked: loopback address" });
  });

  it("never tells the user which internal address a name resolved to, at save or at connect time", async () => {
    expect(await checkDestination("https://loopback.example.com/", closed, dns)).toEqual({ ok: false, reason: "loopback.example.com: blocked: loopback address" });
    const connectError = await new Promise<NodeJS.ErrnoException | null>((resolve) => safeLookup(closed, dns)("loopback.example.com", {}, (error) => resolve(error)));
    expect(connectError).toMatchObject({ code: "ERR_REHOOK_BLOCKED_ADDRESS", message: "blocked: loopback address" });
    expect(connectError!.message).not.toContain("127.0.0.1");
  });

  it("accepts a name with at least one public address (the connection uses only those)", async () => {
    expect((await checkDestination("https://mixed.example.com/", closed, dns)).ok).toBe(true);
  });

  it("opens private names with ALLOW_PRIVATE_DESTINATIONS, but never cloud metadata", async () => {
    const open = { allowPrivate: true };
    expect((await checkDestination("https://internal.example.com/", open, dns)).ok).toBe(true);
    const metadata = await checkDestination("https://metadata.example.com/", open, dns);
    expect(metadata).toEqual({ ok: false, reason: "metadata.example.com: blocked: cloud metadata address" });
  });

  it.each([
    ["ecs.example.com", "169.254.170.2", "cloud metadata address"],
    ["wireserver.example.com", "168.63.129.16", "cloud metadata address"],
    ["imds6.example.com", "fd00:ec2::254", "cloud metadata address"],
    ["siit.example.com", "::ffff:0:7f00:1", "IPv4-translated (SIIT) address"],
  ])("refuses %s (%s) with private destinations allowed or not, naming the kind only", async (host, address, kind) => {
    for (const policy of [closed, { allowPrivate: true }]) {
      const checked = await checkDestination(`https://${host}/`, policy, dns);
      expect(checked).toEqual({ ok: false, reason: `${host}: blocked: ${kind}` });
      expect(JSON.stringify(checked)).not.toContain(address);
    }
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
