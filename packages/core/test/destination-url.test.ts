import { describe, expect, it } from "vitest";
import { checkDestinationSyntax, checkDestinationUrl } from "../src/index.js";

describe("destination URL syntax", () => {
  it("accepts absolute http and https URLs", () => {
    expect(checkDestinationSyntax(" https://example.com/hooks ")).toEqual({ ok: true, url: "https://example.com/hooks" });
  });

  it.each([
    ["not a url", /valid absolute URL/],
    ["file:///etc/passwd", /scheme file/],
    ["ftp://example.com/", /scheme ftp/],
    ["http://u:p@example.com/", /credentials/],
  ])("refuses %s", (raw, reason) => {
    const checked = checkDestinationSyntax(raw);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.reason).toMatch(reason);
  });
});

describe("destination URLs on addresses that stay closed whatever ALLOW_PRIVATE_DESTINATIONS says", () => {
  it.each([
    ["http://169.254.169.254/latest/meta-data/", "169.254.169.254", "cloud metadata address"],
    ["http://169.254.170.2/v2/credentials/x", "169.254.170.2", "cloud metadata address"],
    ["http://169.254.0.23/meta-data/", "169.254.0.23", "cloud metadata address"],
    ["http://168.63.129.16/machine?comp=goalstate", "168.63.129.16", "cloud metadata address"],
    ["http://100.100.100.200/latest/meta-data/", "100.100.100.200", "cloud metadata address"],
    ["http://[fd00:ec2::254]/latest/meta-data/", "fd00:ec2::254", "cloud metadata address"],
    ["http://[fd00:ec2::1]:8080/", "fd00:ec2::1", "cloud metadata address"],
    ["http://[::ffff:169.254.169.254]/", "169.254.169.254", "cloud metadata address"],
    ["http://169.254.10.20/", "169.254.10.20", "IPv4 link-local address (cloud metadata range)"],
    ["http://[::ffff:0:7f00:1]/", "7f00:1", "IPv4-translated (SIIT) address"],
    ["http://[::ffff:0:a9fe:a9fe]/", "a9fe", "IPv4-translated (SIIT) address"],
  ])("refuses %s, naming the kind but not the address", (url, address, kind) => {
    for (const policy of [{ allowPrivate: false }, { allowPrivate: true }]) {
      expect(checkDestinationUrl(url, policy)).toEqual({ ok: false, reason: `blocked: ${kind}` });
      expect(JSON.stringify(checkDestinationUrl(url, policy))).not.toContain(address);
    }
  });

  it("classifies IPv4-mapped literals as their IPv4 address: loopback opt-in, public allowed", () => {
    expect(checkDestinationUrl("http://[::ffff:127.0.0.1]/", { allowPrivate: false })).toEqual({ ok: false, reason: "blocked: loopback address" });
    expect(checkDestinationUrl("http://[::ffff:127.0.0.1]/", { allowPrivate: true }).ok).toBe(true);
    expect(checkDestinationUrl("http://[::ffff:8.8.8.8]/", { allowPrivate: false }).ok).toBe(true);
  });

  it("keeps IPv6 link-local opt-in", () => {
    expect(checkDestinationUrl("http://[fe80::1]/", { allowPrivate: false })).toEqual({ ok: false, reason: "blocked: IPv6 link-local address" });
    expect(checkDestinationUrl("http://[fe80::1]/", { allowPrivate: true }).ok).toBe(true);
  });
});
