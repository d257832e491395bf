import { describe, expect, it } from "vitest";
import { checkAddress, checkDestinationUrl, classifyAddress } from "../src/index.js";

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
    ["169.254.1.1", "link-local"],
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
    ["fd00:ec2::254", "metadata"],
    ["100.100.100.200", "metadata"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:8.8.8.8", "public"],
  ])("%s is %s", (address, kind) => {
    expect(classifyAddress(address)).toBe(kind);
  });

  it("is undefined for names", () => {
    expect(classifyAddress("example.com")).toBeUndefined();
  });
});

describe("address policy", () => {
  it("allows only public addresses by default, naming the reason otherwise", () => {
    expect(checkAddress("93.184.216.34", closed)).toEqual({ allowed: true });
    expect(checkAddress("127.0.0.1", closed)).toEqual({ allowed: false, reason: "blocked: loopback address (127.0.0.1)" });
  });

  it("opens loopback and private ranges on opt-in, never cloud metadata", () => {
    expect(checkAddress("127.0.0.1", opened).allowed).toBe(true);
    expect(checkAddress("10.0.0.5", opened).allowed).toBe(true);
    expect(checkAddress("169.254.169.254", opened)).toEqual({ allowed: false, reason: "blocked: cloud metadata address (169.254.169.254)" });
    expect(checkAddress("fd00:ec2::254", opened).allowed).toBe(false);
    expect(checkAddress("100.100.100.200", opened).allowed).toBe(false);
    expect(checkAddress("0.0.0.0", opened).allowed).toBe(false);
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
