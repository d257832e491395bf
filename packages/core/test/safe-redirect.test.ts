import { describe, expect, it } from "vitest";
import { safeRedirectPath } from "../src/index.js";

describe("redirects after login", () => {
  it.each([
    ["/", "/"],
    ["/events", "/events"],
    ["/events?status=failed", "/events?status=failed"],
    ["/events?endpointId=0192f0e0-0000-7000-8000-000000000000&status=failed", "/events?endpointId=0192f0e0-0000-7000-8000-000000000000&status=failed"],
    ["/endpoints/abc#settings", "/endpoints/abc#settings"],
    ["/events?q=a%2Fb", "/events?q=a%2Fb"],
    ["/événements", "/%C3%A9v%C3%A9nements"], // percent-encoded: a Location header carries ASCII
  ])("keeps the same-site path %s", (next, expected) => {
    expect(safeRedirectPath(next)).toBe(expected);
  });

  const hostile = [
    "",
    "events",
    "https://evil.example/",
    "//evil.example",
    "///evil.example",
    "/\\evil.example",
    "\\/evil.example",
    "/\t/evil.example",
    "/\n/evil.example",
    "/\r\nSet-Cookie: x=1",
    "/events\r\nLocation: //evil.example",
    "/events\u0000",
    "/events\u2028",
    "/events\u2029",
    "/events\u0085",
    "/events\u007f",
    "/events\u001b",
    "/%5Cevil.example",
    "/%5cevil.example",
    "/%2F%2Fevil.example",
    "/%2f/evil.example",
    "/%09/evil.example",
    "/%0d%0aSet-Cookie:%20x=1",
    "/events%00",
    "/events%E2%80%A8",
    "/%252F%252Fevil.example",
    "/%25252F/evil.example",
    "/%255Cevil.example",
    "/..//evil.example",
    "/./\\evil.example",
    "/a/../..//evil.example",
    "/%E0%A4%A", // malformed escape
    "/%",
  ];

  it.each(hostile)("sends %j to /", (next) => {
    expect(safeRedirectPath(next)).toBe("/");
  });

  it("sends anything that is not a string to /", () => {
    for (const next of [null, undefined, 42, ["/events"], { toString: () => "/events" }]) expect(safeRedirectPath(next)).toBe("/");
  });
});
