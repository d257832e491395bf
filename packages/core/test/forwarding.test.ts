import { describe, expect, it } from "vitest";
import { forwardableHeaders, forwardTarget, hasDotSegment, type HeaderList } from "../src/index.js";

describe("forwardable headers", () => {
  it("drops hop-by-hop headers and those Connection names, keeping order, case and duplicates", () => {
    const headers: HeaderList = [
      ["Host", "rehook.example"],
      ["Content-Type", "application/json"],
      ["Connection", "keep-alive, X-Hop"],
      ["X-Hop", "dropped"],
      ["Keep-Alive", "timeout=5"],
      ["Transfer-Encoding", "chunked"],
      ["Content-Length", "2"],
      ["Proxy-Authorization", "secret"],
      ["TE", "trailers"],
      ["Trailer", "X-T"],
      ["Upgrade", "h2c"],
      ["Expect", "100-continue"],
      ["Proxy-Connection", "keep-alive"],
      ["X-Dup", "1"],
      ["Stripe-Signature", "t=1,v1=abc"],
      ["X-Dup", "2"],
      ["Content-Encoding", "gzip"],
    ];
    expect(forwardableHeaders(headers)).toEqual([
      ["Content-Type", "application/json"],
      ["X-Dup", "1"],
      ["Stripe-Signature", "t=1,v1=abc"],
      ["X-Dup", "2"],
      ["Content-Encoding", "gzip"],
    ]);
  });
});

describe("proxy headers", () => {
  const headers: HeaderList = [
    ["Content-Type", "application/json"],
    ["X-Forwarded-For", "203.0.113.7"],
    ["x-forwarded-host", "evil.example"],
    ["X-Forwarded-Proto", "https"],
    ["X-Forwarded-Prefix", "/admin"],
    ["Forwarded", "for=203.0.113.7;proto=https"],
    ["X-Real-IP", "203.0.113.7"],
    ["X-Forwarded", "not a prefix match"],
    ["X-Request-Id", "r1"],
  ];

  it("drops X-Forwarded-*, Forwarded and X-Real-IP by default", () => {
    expect(forwardableHeaders(headers)).toEqual([
      ["Content-Type", "application/json"],
      ["X-Forwarded", "not a prefix match"],
      ["X-Request-Id", "r1"],
    ]);
    expect(forwardableHeaders(headers, { keepProxyHeaders: false })).toEqual(forwardableHeaders(headers));
  });

  it("keeps them, in order, when the endpoint opts in (hop-by-hop headers still go)", () => {
    expect(forwardableHeaders([...headers, ["Connection", "close"]], { keepProxyHeaders: true })).toEqual(headers);
  });
});

describe("forward target", () => {
  const target = (destination: string, subPath: string, query = "") => forwardTarget(destination, subPath, query);

  it("appends the captured sub-path and query to the destination", () => {
    expect(target("https://api.example.com/hooks", "/github/push", "a=1")).toEqual({ ok: true, url: "https://api.example.com/hooks/github/push?a=1" });
    expect(target("https://api.example.com/hooks/", "/x")).toEqual({ ok: true, url: "https://api.example.com/hooks/x" });
    expect(target("https://api.example.com/hooks?token=t", "", "a=1&a=2")).toEqual({ ok: true, url: "https://api.example.com/hooks?token=t&a=1&a=2" });
    expect(target("https://api.example.com", "")).toEqual({ ok: true, url: "https://api.example.com/" });
  });

  it("keeps look-alikes of dot segments that are ordinary names", () => {
    for (const subPath of ["/...", "/..a", "/a..", "/.well-known/x", "/%2e%2e%2e", "/v1.2/a", "/%2ex"]) {
      const result = target("https://api.example.com/hooks", subPath);
      expect(result.ok, subPath).toBe(true);
      expect(result.ok && new URL(result.url).pathname.startsWith("/hooks/"), subPath).toBe(true);
    }
  });

  // Events stored before capture refused these must not escape either.
  const escapes = [
    "/..",
    "/../admin",
    "/a/../../admin",
    "/./x",
    "/%2e%2e/admin",
    "/%2E%2E/admin",
    "/.%2e/admin",
    "/%2e./admin",
    "/%2E./admin",
    "/.%2E/admin",
    "/a/%2e%2e%2f%2e%2e%2fadmin",
    "/a%2f..%2fadmin",
    "/a%2F..%2F..%2Fadmin",
    "/a\\..\\..\\admin",
    "/a%5c..%5cadmin",
    "/%252e%252e/admin",
    "/..;/admin",
    "/.\t./admin",
  ];

  it.each(escapes)("refuses %s with a clear reason instead of leaving the base path", (subPath) => {
    expect(hasDotSegment(subPath)).toBe(true);
    const result = target("https://api.example.com/hooks", subPath, "a=1");
    expect(result).toEqual({ ok: false, reason: expect.stringContaining("could leave the destination's path /hooks") });
  });

  it("guarantees the result lies under the base path even for a path that does not start with /", () => {
    expect(target("https://api.example.com/hooks", "x/y")).toMatchObject({ ok: false });
    expect(target("https://api.example.com/", "x")).toEqual({ ok: true, url: "https://api.example.com/x" });
  });
});
