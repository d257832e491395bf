import { describe, expect, it } from "vitest";
import { forwardableHeaders, forwardTarget, type HeaderList } from "../src/index.js";

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

describe("forward target", () => {
  it("appends the captured sub-path and query to the destination", () => {
    expect(forwardTarget("https://api.example.com/hooks", "/github/push", "a=1")).toBe("https://api.example.com/hooks/github/push?a=1");
    expect(forwardTarget("https://api.example.com/hooks/", "/x", "")).toBe("https://api.example.com/hooks/x");
    expect(forwardTarget("https://api.example.com/hooks?token=t", "", "a=1&a=2")).toBe("https://api.example.com/hooks?token=t&a=1&a=2");
    expect(forwardTarget("https://api.example.com", "", "")).toBe("https://api.example.com/");
  });
});
