import { describe, expect, it } from "vitest";
import { checkAddress, checkDestinationUrl, classifyAddress, withPrivateDestinationHint } from "../src/index.js";

const closed = { allowPrivate: false };
const opened = { allowPrivate: true };

describe("address classification", () => {
  it.each([
    ["8.8.8.8", "public"],
    ["2606:4700:4700::1111", "public"],
    ["127.0.0.1", "loopback"],
    ["127.0.0.2", "loopback"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["0.0.0.0", "unspecified"],
    ["::", "unspecified"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["172.32.0.1", "public"],
    ["192.168.1.1", "private"],
    ["fc00::1", "private"],
    ["fd12:3456::1", "private"],
    ["169.254.1.1", "metadata-range"],
    ["169.254.255.255", "metadata-range"],
    ["fe80::1", "link-local"],
    ["100.64.0.1", "shared"],
    ["224.0.0.1", "multicast"],
    ["ff02::1", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["240.0.0.1", "reserved"],
    ["192.0.2.1", "documentation"],
    ["2001:db8::1", "documentation"],
    ["64:ff9b::7f00:1", "nat64"],
    ["64:ff9b:1::1", "nat64"],
    ["2002:7f00:1::", "6to4"],
    ["2001:0:4136:e378::1", "teredo"],
    ["169.254.169.254", "metadata"],
    ["169.254.170.2", "metadata"],
    ["169.254.0.23", "metadata"],
    ["168.63.129.16", "metadata"],
    ["168.63.129.17", "public"],
    ["fd00:ec2::254", "metadata"],
    ["fd00:ec2::23", "metadata"],
    ["fd00:ec2:0:0:ffff:ffff:ffff:ffff", "metadata"],
    ["fd00:ec2:0:1::1", "private"],
    ["100.100.100.200", "metadata"],
    ["::ffff:0:7f00:1", "ipv4-translated"],
    ["::ffff:0:127.0.0.1", "ipv4-translated"],
    ["0:0:0:0:ffff:0:808:808", "ipv4-translated"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:8.8.8.8", "public"],
    ["::ffff:169.254.169.254", "metadata"],
    ["::ffff:168.63.129.16", "metadata"],
  ])("%s is %s", (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it("is undefined for names", () => {
    expect(classifyAddress("example.com")).toBeUndefined();
  });
});

describe("address policy", () => {
  it("allows only public addresses by default, naming the kind of address refused", () => {
    expect(checkAddress("93.184.216.34", closed)).toEqual({ allowed: true });
    expect(checkAddress("127.0.0.1", closed)).toEqual({ allowed: false, reason: "blocked: loopback address" });
  });

  it("opens loopback, private, shared and IPv6 link-local ranges on opt-in, never cloud metadata", () => {
    expect(checkAddress("127.0.0.1", opened).allowed).toBe(true);
    expect(checkAddress("10.0.0.5", opened).allowed).toBe(true);
    expect(checkAddress("100.64.0.1", opened).allowed).toBe(true);
    expect(checkAddress("fe80::1", opened).allowed).toBe(true);
    expect(checkAddress("fe80::1", closed)).toEqual({ allowed: false, reason: "blocked: IPv6 link-local address" });
    expect(checkAddress("169.254.169.254", opened)).toEqual({ allowed: false, reason: "blocked: cloud metadata address" });
    expect(checkAddress("0.0.0.0", opened).allowed).toBe(false);
  });

  it.each([
    ["169.254.169.254", "cloud metadata address"], // AWS, GCP, Azure IMDS
    ["169.254.170.2", "cloud metadata address"], // AWS ECS credentials
    ["169.254.0.23", "cloud metadata address"], // Tencent
    ["168.63.129.16", "cloud metadata address"], // Azure WireServer
    ["100.100.100.200", "cloud metadata address"], // Alibaba
    ["fd00:ec2::254", "cloud metadata address"], // AWS IPv6 IMDS
    ["fd00:ec2::abcd", "cloud metadata address"], // anywhere in fd00:ec2::/64
    ["::ffff:169.254.169.254", "cloud metadata address"], // mapped: classified as its IPv4 address
    ["169.254.1.1", "IPv4 link-local address (cloud metadata range)"],
    ["169.254.255.254", "IPv4 link-local address (cloud metadata range)"],
    ["::ffff:0:7f00:1", "IPv4-translated (SIIT) address"],
    ["::ffff:0:a9fe:a9fe", "IPv4-translated (SIIT) address"],
    ["0:0:0:0:ffff:0:808:808", "IPv4-translated (SIIT) address"],
  ])("refuses %s with or without ALLOW_PRIVATE_DESTINATIONS, and the reason does not echo it", (address, kind) => {
    for (const policy of [closed, opened]) {
      const verdict = checkAddress(address, policy);
      expect(verdict).toEqual({ allowed: false, reason: `blocked: ${kind}` });
    }
  });

  it("never puts the address in a refusal", () => {
    for (const address of ["127.0.0.1", "10.1.2.3", "::1", "fc00::1", "192.0.2.1", "224.0.0.1", "2002:7f00:1::", "::ffff:127.0.0.1", "not-an-ip"]) {
      const verdict = checkAddress(address, closed);
      expect(verdict.allowed).toBe(false);
      if (!verdict.allowed) {
        expect(verdict.reason).toMatch(/^blocked: /);
        expect(verdict.reason).not.toContain(address);
        expect(verdict.reason).not.toMatch(/\d+\.\d+\.\d+\.\d+|::/);
      }
    }
  });

  it("allows a public IPv4 address written as IPv4-mapped IPv6 (it reaches that same host)", () => {
    expect(checkAddress("::ffff:8.8.8.8", closed)).toEqual({ allowed: true });
    expect(checkAddress("::ffff:127.0.0.1", closed)).toEqual({ allowed: false, reason: "blocked: loopback address" });
    expect(checkAddress("::ffff:127.0.0.1", opened)).toEqual({ allowed: true });
  });
});

describe("destination URLs at save time", () => {
  it.each([
    ["http://127.0.0.2/", /loopback/],
    ["http://localhost./", /loopback/],
    ["http://api.localhost/", /loopback/],
    ["http://2130706433/", /loopback/],
    ["http://0x7f000001/", /loopback/],
    ["http://127.1/", /loopback/],
    ["http://0.0.0.0/", /unspecified/],
    ["http://[::]/", /unspecified/],
    ["http://[::ffff:127.0.0.1]/", /loopback/],
    ["http://[fe80::1]/", /link-local/],
    ["http://169.254.169.254/latest/meta-data/", /metadata/],
    ["http://169.254.170.2/v2/credentials", /cloud metadata address/],
    ["http://[fd00:ec2::254]/latest/meta-data/", /cloud metadata address/],
    ["http://168.63.129.16/machine", /cloud metadata address/],
    ["http://[::ffff:0:7f00:1]/", /IPv4-translated/],
    ["http://100.64.0.1/", /CGNAT/],
    ["file:///etc/passwd", /scheme file/],
    ["http://u:p@example.com/", /credentials/],
  ])("refuses %s", (url, reason) => {
    const checked = checkDestinationUrl(url, closed);
    expect(checked.ok).toBe(false);
    if (!checked.ok) expect(checked.reason).toMatch(reason);
  });

  it("accepts public hosts, and local ones when private destinations are allowed", () => {
    expect(checkDestinationUrl("https://hooks.example.com/in", closed)).toEqual({ ok: true, url: "https://hooks.example.com/in" });
    expect(checkDestinationUrl("http://localhost:3000/hook", opened).ok).toBe(true);
    expect(checkDestinationUrl("http://127.0.0.1:3000/hook", opened).ok).toBe(true);
  });
});

describe("withPrivateDestinationHint", () => {
  it("points to ALLOW_PRIVATE_DESTINATIONS for the addresses it opens, and only those", () => {
    const closed = { allowPrivate: false };
    const reasonFor = (address: string) => {
      const verdict = checkAddress(address, closed);
      return verdict.allowed ? "" : verdict.reason;
    };
    for (const address of ["127.0.0.1", "10.1.2.3", "fe80::1", "100.64.0.1"]) {
      expect(withPrivateDestinationHint(reasonFor(address)), address).toMatch(/; a self-hosted server can allow private destinations with ALLOW_PRIVATE_DESTINATIONS=true$/);
    }
    const localhost = checkDestinationUrl("http://localhost:3000/hook", closed);
    expect(localhost.ok ? "" : withPrivateDestinationHint(localhost.reason)).toMatch(/ALLOW_PRIVATE_DESTINATIONS/);
    for (const address of ["169.254.169.254", "169.254.1.1", "224.0.0.1", "0.0.0.0"]) {
      expect(withPrivateDestinationHint(reasonFor(address)), address).toBe(reasonFor(address));
    }
  });
});
