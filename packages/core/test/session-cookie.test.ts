import { describe, expect, it } from "vitest";
import { withoutSessionCookie, type HeaderList } from "../src/index.js";

describe("withoutSessionCookie", () => {
  it("drops the dashboard's session cookie (either name) and keeps the other cookies in order", () => {
    const headers: HeaderList = [
      ["Host", "rehook.example.com"],
      ["Cookie", "theme=dark; rehook_session=abcdefghijklmnopqrstuvwxyz234567abcdefgh; lang=en"],
      ["cookie", "__Host-rehook_session=xyz"],
      ["Content-Type", "application/json"],
    ];
    expect(withoutSessionCookie(headers)).toEqual([
      ["Host", "rehook.example.com"],
      ["Cookie", "theme=dark; lang=en"],
      ["Content-Type", "application/json"],
    ]);
  });

  it("returns the same list when there is no session cookie (the capture path's common case)", () => {
    const headers: HeaderList = [["Cookie", "my_rehook_session=1; rehook_sessions=2"], ["X-Rehook-Session", "rehook_session=3"]];
    expect(withoutSessionCookie(headers)).toBe(headers);
  });
});
