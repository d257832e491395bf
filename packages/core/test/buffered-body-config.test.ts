import { describe, expect, it } from "vitest";
import { ByteBudget, ConfigError, loadConfig } from "../src/index.js";

const MIB = 1024 * 1024;

describe("MAX_BUFFERED_BODY_BYTES", () => {
  it("defaults to 256 MiB, or room for 4 bodies of MAX_PAYLOAD_BYTES if that is more", () => {
    expect(loadConfig({}, "/d").maxBufferedBodyBytes).toBe(256 * MIB);
    expect(loadConfig({ MAX_PAYLOAD_BYTES: String(100 * MIB) }, "/d").maxBufferedBodyBytes).toBe(400 * MIB);
    expect(loadConfig({ MAX_BUFFERED_BODY_BYTES: String(64 * MIB) }, "/d").maxBufferedBodyBytes).toBe(64 * MIB);
  });

  it("must hold the largest body a route accepts, and be plain digits", () => {
    expect(() => loadConfig({ MAX_BUFFERED_BODY_BYTES: String(5 * MIB) }, "/d")).toThrow(ConfigError);
    expect(() => loadConfig({ MAX_BUFFERED_BODY_BYTES: String(5 * MIB) }, "/d")).toThrow(/^invalid MAX_BUFFERED_BODY_BYTES: 5242880 is less than the largest body a route accepts \(10485760 bytes/);
    expect(() => loadConfig({ MAX_PAYLOAD_BYTES: "1024", MAX_BUFFERED_BODY_BYTES: "4096" }, "/d")).toThrow(/1048576 bytes/);
    for (const bad of ["0", "0x10", " 1", "1e9"]) expect(() => loadConfig({ MAX_BUFFERED_BODY_BYTES: bad }, "/d"), bad).toThrow(/^invalid MAX_BUFFERED_BODY_BYTES: /);
  });
});

describe("ByteBudget", () => {
  it("lets shares grow only within the limit, and takes each share back once", () => {
    const budget = new ByteBudget(100);
    const a = budget.share();
    const b = budget.share();
    expect(a.grow(60)).toBe(true);
    expect(b.grow(50)).toBe(false);
    expect(b.grow(40)).toBe(true);
    expect(budget.used).toBe(100);
    a.release();
    a.release();
    expect(budget.used).toBe(40);
    expect(a.grow(1)).toBe(false);
    b.release();
    expect(budget.used).toBe(0);
    budget.setLimit(10);
    expect(budget.share().grow(11)).toBe(false);
    expect(() => new ByteBudget(0)).toThrow(RangeError);
  });
});
