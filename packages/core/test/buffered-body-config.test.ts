import { describe, expect, it } from "vitest";
import { addressKey, BodyBudget, ConfigError, loadConfig, networkKey, OPEN_UPLOAD_BYTES, openingCharge, parseClientAddress, SMALL_BODY_GRACE_MS, uploadRateFor, uploadTooSlow } from "../src/index.js";

const MIB = 1024 * 1024;
const KIB = 1024;

describe("MAX_BUFFERED_BODY_BYTES and its slices", () => {
  it("defaults to 256 MiB (or room for 4 bodies of MAX_PAYLOAD_BYTES), 16 MiB of it kept for the dashboard", () => {
    const config = loadConfig({}, "/d");
    expect(config.maxBufferedBodyBytes).toBe(256 * MIB);
    expect(config.bodyBudget).toEqual({
      capture: { bytes: 240 * MIB, perAddress: 60 * MIB, perNetwork: 120 * MIB, perTarget: 120 * MIB },
      dashboard: { bytes: 16 * MIB, perAddress: 4 * MIB, perNetwork: 8 * MIB, anonymous: 8 * MIB },
    });
    expect(config.minUploadRate).toEqual({ bytesPerSecond: 1024, graceMs: 10_000 });
    expect(loadConfig({ MAX_PAYLOAD_BYTES: String(100 * MIB) }, "/d").maxBufferedBodyBytes).toBe(400 * MIB);
    // A sixteenth of a smaller budget, never less than the 1 MiB an API body may take; caps never below one body.
    const small = loadConfig({ MAX_BUFFERED_BODY_BYTES: String(12 * MIB) }, "/d").bodyBudget;
    expect(small).toEqual({ capture: { bytes: 11 * MIB, perAddress: 10 * MIB, perNetwork: 11 * MIB, perTarget: 10 * MIB }, dashboard: { bytes: MIB, perAddress: MIB, perNetwork: MIB, anonymous: MIB } });
  });

  it("takes every part from the environment", () => {
    const config = loadConfig(
      {
        MAX_PAYLOAD_BYTES: String(MIB),
        MAX_BUFFERED_BODY_BYTES: String(64 * MIB),
        DASHBOARD_BUFFERED_BODY_BYTES: String(8 * MIB),
        CAPTURE_BUFFERED_BODY_BYTES_PER_ADDRESS: String(2 * MIB),
        CAPTURE_BUFFERED_BODY_BYTES_PER_ENDPOINT: String(3 * MIB),
        DASHBOARD_BUFFERED_BODY_BYTES_PER_ADDRESS: String(MIB),
        DASHBOARD_ANONYMOUS_BUFFERED_BODY_BYTES: String(5 * MIB),
        MIN_BODY_BYTES_PER_SECOND: "0",
        BODY_RATE_GRACE_MS: "2500",
      },
      "/d",
    );
    expect(config.bodyBudget).toEqual({
      capture: { bytes: 56 * MIB, perAddress: 2 * MIB, perNetwork: 4 * MIB, perTarget: 3 * MIB },
      dashboard: { bytes: 8 * MIB, perAddress: MIB, perNetwork: 2 * MIB, anonymous: 5 * MIB },
    });
    expect(config.minUploadRate).toEqual({ bytesPerSecond: 0, graceMs: 2500 });
  });

  it("must hold a capture body and the dashboard's slice, each cap one body and at most its slice, in plain digits", () => {
    expect(() => loadConfig({ MAX_BUFFERED_BODY_BYTES: String(10 * MIB) }, "/d")).toThrow(ConfigError);
    expect(() => loadConfig({ MAX_BUFFERED_BODY_BYTES: String(10 * MIB) }, "/d")).toThrow(
      /^invalid MAX_BUFFERED_BODY_BYTES: 10485760 leaves 9437184 bytes for captures once the dashboard's 1048576 are kept .*; give at least 11534336$/,
    );
    expect(() => loadConfig({ DASHBOARD_BUFFERED_BODY_BYTES: String(512 * KIB) }, "/d")).toThrow(/^invalid DASHBOARD_BUFFERED_BODY_BYTES: 524288 is less than .* \(1048576 bytes\)/);
    expect(() => loadConfig({ CAPTURE_BUFFERED_BODY_BYTES_PER_ADDRESS: String(MIB) }, "/d")).toThrow(/^invalid CAPTURE_BUFFERED_BODY_BYTES_PER_ADDRESS: 1048576 is less than the largest body it must take \(10485760 bytes\)/);
    expect(() => loadConfig({ CAPTURE_BUFFERED_BODY_BYTES_PER_ENDPOINT: String(241 * MIB) }, "/d")).toThrow(/^invalid CAPTURE_BUFFERED_BODY_BYTES_PER_ENDPOINT: .* more than its whole slice/);
    expect(() => loadConfig({ DASHBOARD_BUFFERED_BODY_BYTES_PER_ADDRESS: String(17 * MIB) }, "/d")).toThrow(/^invalid DASHBOARD_BUFFERED_BODY_BYTES_PER_ADDRESS: /);
    expect(() => loadConfig({ DASHBOARD_ANONYMOUS_BUFFERED_BODY_BYTES: String(17 * MIB) }, "/d")).toThrow(/^invalid DASHBOARD_ANONYMOUS_BUFFERED_BODY_BYTES: /);
    expect(() => loadConfig({ BODY_RATE_GRACE_MS: "10" }, "/d")).toThrow(/^invalid BODY_RATE_GRACE_MS: /);
    for (const bad of ["0", "0x10", " 1", "1e9"]) expect(() => loadConfig({ MAX_BUFFERED_BODY_BYTES: bad }, "/d"), bad).toThrow(/^invalid MAX_BUFFERED_BODY_BYTES: /);
  });
});

describe("BodyBudget", () => {
  const limits = () => ({
    capture: { bytes: 100 * KIB, perAddress: 40 * KIB, perNetwork: 100 * KIB, perTarget: 60 * KIB },
    dashboard: { bytes: 50 * KIB, perAddress: 30 * KIB, perNetwork: 50 * KIB },
  });
  const from = (address: string | null) => ({ address });

  it("keeps the slices apart, and caps one address and one target within a slice", () => {
    const budget = new BodyBudget(limits());
    const a = budget.open("capture", from("203.0.113.1"), "slug-a");
    expect(a.reserve(40 * KIB)).toBeNull();
    expect(a.reserve(41 * KIB)).toBe("address");
    expect(a.bytes).toBe(40 * KIB);
    const b = budget.open("capture", from("203.0.113.2"), "slug-a");
    expect(b.reserve(21 * KIB)).toBe("target");
    expect(b.reserve(20 * KIB)).toBeNull();
    const c = budget.open("capture", from("203.0.113.3"), "slug-b");
    expect(c.reserve(40 * KIB)).toBeNull();
    expect(budget.open("capture", from("203.0.113.4"), "slug-c").reserve(1)).toBe("slice");
    // The dashboard's slice is untouched by the captures' load.
    const d = budget.open("dashboard", from("203.0.113.1"));
    expect(d.reserve(30 * KIB)).toBeNull();
    expect(budget.used).toBe(130 * KIB);
    expect(budget.limit).toBe(150 * KIB);
    expect(budget.usage("capture")).toMatchObject({ used: 100 * KIB, limit: 100 * KIB });
    expect(budget.usage("capture").address("203.0.113.1")).toBe(40 * KIB);
    expect(budget.usage("capture").target("slug-a")).toBe(60 * KIB);
  });

  it("gives back an opening charge once a body is complete, each hold once, and forgets keys that hold nothing", () => {
    const budget = new BodyBudget(limits());
    const hold = budget.open("capture", from("203.0.113.1"), "slug");
    expect(hold.reserve(OPEN_UPLOAD_BYTES)).toBeNull();
    hold.shrinkTo(100);
    expect(budget.used).toBe(100);
    hold.release();
    hold.release();
    expect(budget.used).toBe(0);
    expect(hold.reserve(1)).toBe("slice");
    expect(budget.usage("capture").keys).toBe(0);
    expect(() => new BodyBudget({ ...limits(), dashboard: { bytes: 0, perAddress: 1, perNetwork: 1 } })).toThrow(RangeError);
  });

  it("counts an IPv6 client by its /64 and an IPv4-mapped one as IPv4", () => {
    expect(addressKey("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8:1:2:bbbb::7")).toBe("2001:db8:1:2::/64");
    expect(addressKey("::ffff:198.51.100.7")).toBe("198.51.100.7");
    expect(addressKey("198.51.100.7")).toBe("198.51.100.7");
    expect(addressKey(null)).toBe("-");
  });

  it("drops the port a load balancer wrote, and puts every address that does not parse under one key", () => {
    // Each source port used to be a key of its own, so one client had a cap per connection.
    expect(addressKey("198.51.100.7:51234")).toBe("198.51.100.7");
    expect(addressKey("198.51.100.7:443")).toBe("198.51.100.7");
    expect(addressKey("[2001:db8:1:2::9]:443")).toBe("2001:db8:1:2::/64");
    expect(addressKey("[2001:db8:1:2::9]")).toBe("2001:db8:1:2::/64");
    expect(addressKey("[::ffff:198.51.100.7]:80")).toBe("198.51.100.7");
    for (const junk of ["unknown", "1.2.3", "999.1.1.1", "[198.51.100.7]x", "a:b:c", "_hidden", " "]) expect(addressKey(junk), junk).toBe("-");
    expect(parseClientAddress("fe80::1%eth0")).toBe("fe80::1");
    expect(parseClientAddress("2001:DB8::1")).toBe("2001:db8::1");

    const budget = new BodyBudget(limits());
    for (let port = 40_000; port < 40_005; port += 1) budget.open("capture", from(`203.0.113.5:${port}`)).reserve(10 * KIB);
    expect(budget.usage("capture").address("203.0.113.5")).toBe(40 * KIB);
    expect(budget.open("capture", from("203.0.113.5:40009")).reserve(1)).toBe("address");
    for (const junk of ["garbage-1", "garbage-2", "garbage-3", "garbage-4"]) budget.open("dashboard", from(junk)).reserve(7 * KIB);
    expect(budget.open("dashboard", from("garbage-5")).reserve(3 * KIB)).toBe("address");
    expect(budget.usage("dashboard").address(null)).toBe(28 * KIB);
  });

  it("caps an IPv6 /48 as well as each /64 in it", () => {
    expect(networkKey("2001:db8:1:2::1")).toBe("2001:db8:1::/48");
    expect(networkKey("198.51.100.7")).toBeUndefined();
    const budget = new BodyBudget({ ...limits(), capture: { bytes: 100 * KIB, perAddress: 20 * KIB, perNetwork: 50 * KIB } });
    expect(budget.open("capture", from("2001:db8:1:1::1")).reserve(20 * KIB)).toBeNull();
    expect(budget.open("capture", from("2001:db8:1:2::1")).reserve(20 * KIB)).toBeNull();
    expect(budget.open("capture", from("2001:db8:1:3::1")).reserve(20 * KIB)).toBe("network");
    expect(budget.open("capture", from("2001:db8:1:3::1")).reserve(10 * KIB)).toBeNull();
    expect(budget.usage("capture").network("2001:db8:1:ffff::1")).toBe(50 * KIB);
    // Another /48 has room of its own.
    expect(budget.open("capture", from("2001:db8:2:1::1")).reserve(20 * KIB)).toBeNull();
  });

  it("keeps part of a slice from anonymous bodies, and counts an API key's team instead of its address", () => {
    const budget = new BodyBudget({ ...limits(), dashboard: { bytes: 50 * KIB, perAddress: 30 * KIB, perNetwork: 50 * KIB, anonymous: 20 * KIB } });
    expect(budget.open("dashboard", from("203.0.113.1")).reserve(15 * KIB)).toBeNull();
    expect(budget.open("dashboard", from("203.0.113.2")).reserve(6 * KIB)).toBe("slice");
    expect(budget.open("dashboard", from("203.0.113.2")).reserve(5 * KIB)).toBeNull();
    expect(budget.usage("dashboard").anonymous).toBe(20 * KIB);
    // A signed-in request from the same address, and an API key's, still find room.
    expect(budget.open("dashboard", { address: "203.0.113.2", authenticated: true }).reserve(10 * KIB)).toBeNull();
    const team = { address: "203.0.113.1", principal: "team:a" };
    expect(budget.open("dashboard", team).reserve(10 * KIB)).toBeNull();
    expect(budget.usage("dashboard").principal("team:a")).toBe(10 * KIB);
    expect(budget.usage("dashboard").address("203.0.113.1")).toBe(15 * KIB);
    expect(budget.open("dashboard", { address: "198.51.100.1", principal: "team:a" }).reserve(21 * KIB)).toBe("address");
    expect(budget.open("dashboard", { address: "198.51.100.1", principal: "team:b" }).reserve(10 * KIB)).toBeNull();
    expect(budget.open("dashboard", { address: "198.51.100.1", principal: "team:b" }).reserve(1)).toBe("slice");
  });

  it("charges an open upload 16 KiB, or what it declared when less", () => {
    expect(openingCharge(undefined, 10 * MIB)).toBe(OPEN_UPLOAD_BYTES);
    expect(openingCharge(10 * MIB, 10 * MIB)).toBe(OPEN_UPLOAD_BYTES);
    expect(openingCharge(300, 64 * KIB)).toBe(300);
    expect(openingCharge(undefined, 4 * KIB)).toBe(4 * KIB);
  });
});

describe("uploadTooSlow", () => {
  const rate = { bytesPerSecond: 1000, graceMs: 10_000 };
  it("allows the grace, then a second more for every bytesPerSecond bytes received", () => {
    expect(uploadTooSlow(0, 0, 10_000, rate)).toBe(false);
    expect(uploadTooSlow(0, 0, 10_001, rate)).toBe(true);
    expect(uploadTooSlow(0, 5_000, 15_000, rate)).toBe(false);
    expect(uploadTooSlow(0, 5_000, 15_001, rate)).toBe(true);
    expect(uploadTooSlow(0, 0, 1_000_000, { bytesPerSecond: 0, graceMs: 0 })).toBe(false);
  });

  it("gives a body known to be small (declared, or by its route's cap) a short grace", () => {
    const short = { bytesPerSecond: 1000, graceMs: SMALL_BODY_GRACE_MS };
    expect(uploadRateFor(60 * KIB, MIB, rate)).toEqual(short);
    expect(uploadRateFor(undefined, 64 * KIB, rate)).toEqual(short);
    expect(uploadRateFor(65 * KIB, MIB, rate)).toEqual(rate);
    expect(uploadRateFor(undefined, MIB, rate)).toEqual(rate);
    expect(uploadRateFor(100, MIB, { bytesPerSecond: 1000, graceMs: 500 })).toEqual({ bytesPerSecond: 1000, graceMs: 500 });
    expect(uploadTooSlow(0, 1, SMALL_BODY_GRACE_MS + 2, uploadRateFor(60 * KIB, MIB, rate))).toBe(true);
  });
});
