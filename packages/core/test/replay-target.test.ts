import { describe, expect, it } from "vitest";
import { replayTarget, type ReplaySource } from "../src/index.js";

const forwarded: ReplaySource = { destinationUrl: "https://api.example.com/hooks?v=2", stagingHost: "staging.example.com:8443", path: "/github/push", query: "a=1&a=2" };
const captureOnly: ReplaySource = { destinationUrl: null, stagingHost: null, path: "/stripe", query: "x=y" };

describe("replay targets", () => {
  it("original: the current destination with the captured sub-path and query, as forwarding does", () => {
    expect(replayTarget("original", forwarded)).toEqual({ ok: true, url: "https://api.example.com/hooks/github/push?v=2&a=1&a=2" });
    expect(replayTarget("original", captureOnly)).toMatchObject({ ok: false, kind: "impossible" });
  });

  it("staging: the same URL on the staging host (port included)", () => {
    expect(replayTarget("staging", forwarded)).toEqual({ ok: true, url: "https://staging.example.com:8443/hooks/github/push?v=2&a=1&a=2" });
    expect(replayTarget("staging", { ...forwarded, stagingHost: null })).toEqual({ ok: false, kind: "impossible", reason: "set a staging hostname on the endpoint first" });
    expect(replayTarget("staging", captureOnly)).toMatchObject({ ok: false, kind: "impossible" });
  });

  it("local: localhost:3000 with the destination's path and query, or the captured ones", () => {
    expect(replayTarget("local", forwarded)).toEqual({ ok: true, url: "http://localhost:3000/hooks/github/push?v=2&a=1&a=2" });
    expect(replayTarget("local", captureOnly)).toEqual({ ok: true, url: "http://localhost:3000/stripe?x=y" });
    expect(replayTarget("local", { ...captureOnly, path: "", query: "" })).toEqual({ ok: true, url: "http://localhost:3000/" });
  });

  it("local: the port the browser chose instead of 3000, and only a real port", () => {
    expect(replayTarget("local", forwarded, null, 5173)).toEqual({ ok: true, url: "http://localhost:5173/hooks/github/push?v=2&a=1&a=2" });
    expect(replayTarget("local", captureOnly, null, 1)).toEqual({ ok: true, url: "http://localhost:1/stripe?x=y" });
    for (const port of [0, 65_536, 80.5, Number.NaN]) expect(replayTarget("local", forwarded, null, port), String(port)).toMatchObject({ ok: false, kind: "invalid" });
  });

  it("custom: the given URL as it is, validated for syntax", () => {
    expect(replayTarget("custom", captureOnly, "https://example.org/in?k=v")).toEqual({ ok: true, url: "https://example.org/in?k=v" });
    expect(replayTarget("custom", captureOnly)).toMatchObject({ ok: false, kind: "invalid", reason: expect.stringContaining("customUrl is required") });
    expect(replayTarget("custom", captureOnly, "not a url")).toMatchObject({ ok: false, kind: "invalid" });
    expect(replayTarget("custom", captureOnly, "ftp://example.org/")).toMatchObject({ ok: false, kind: "invalid", reason: expect.stringContaining("ftp") });
  });

  it("refuses every target but custom for a stored sub-path that could leave the destination's path", () => {
    for (const path of ["/../admin", "/%2e%2e/admin", "/a%2f..%2f..%2fadmin", "/.%2E/admin"]) {
      for (const environment of ["original", "staging", "local"] as const) {
        expect(replayTarget(environment, { ...forwarded, path }), `${environment} ${path}`).toMatchObject({ ok: false, kind: "impossible", reason: expect.stringContaining("could leave the destination's path /hooks") });
      }
      // Capture-only: the local target is localhost:3000 plus the captured path, which must not climb either.
      expect(replayTarget("local", { ...captureOnly, path }), path).toMatchObject({ ok: false, kind: "impossible" });
      expect(replayTarget("custom", { ...forwarded, path }, "https://example.org/in")).toEqual({ ok: true, url: "https://example.org/in" });
    }
  });
});
