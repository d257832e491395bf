import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DashboardClient } from "./dashboard-client.js";
import { startTestServer, type TestServer } from "./test-server.js";

let t: TestServer;
const email = "redirects@example.com";
const password = "a long enough password";

beforeAll(async () => {
  t = await startTestServer();
  const first = await new DashboardClient(t.rehook.url).postForm("/signup", { email, password });
  expect(first.status).toBe(303);
});
afterAll(() => t.close());

/** Every one of these would take the browser to another site, or break the Location header. */
const hostile = [
  "//evil.example/",
  "///evil.example/",
  "/\\evil.example/",
  "\\/evil.example/",
  "/\t/evil.example/",
  "/\n/evil.example/",
  "/\r\nSet-Cookie: pwned=1",
  "/events\r\nLocation: //evil.example/",
  "/events\u0000",
  "/events\u2028",
  "/events\u2029",
  "/events\u0085",
  "/events\u001b[2J",
  "/%5Cevil.example/",
  "/%5cevil.example/",
  "/%2F%2Fevil.example/",
  "/%2f/evil.example/",
  "/%09/evil.example/",
  "/%0D%0ASet-Cookie:%20pwned=1",
  "/%252F%252Fevil.example/",
  "/..//evil.example/",
  "/a/../..//evil.example/",
  "https://evil.example/",
  "javascript:alert(1)",
  "evil.example",
  "/%E0%A4%A",
];

describe("the next parameter after logging in", () => {
  it.each(hostile)("sends %j to /", async (next) => {
    const response = await new DashboardClient(t.rehook.url).postForm("/login", { email, password, next });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/");
  });

  it.each(["/events?status=failed", "/settings", "/events?endpointId=0192f0e0-0000-7000-8000-000000000000&status=failed"])("keeps the same-site path %s", async (next) => {
    const response = await new DashboardClient(t.rehook.url).postForm("/login", { email, password, next });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe(next);
  });

  it("percent-encodes a same-site path with characters a Location header cannot carry", async () => {
    const response = await new DashboardClient(t.rehook.url).postForm("/login", { email, password, next: "/events?q=日本" });
    expect(response.status).toBe(303);
    expect(response.headers.get("location")).toBe("/events?q=%E6%97%A5%E6%9C%AC");
  });

  it("follows the same rule after signing up", async () => {
    const hostileSignup = await new DashboardClient(t.rehook.url).postForm("/signup", { email: "signup-hostile@example.com", password, next: "/\\evil.example/" });
    expect(hostileSignup.status).toBe(303);
    expect(hostileSignup.headers.get("location")).toBe("/");
    const kept = await new DashboardClient(t.rehook.url).postForm("/signup", { email: "signup-kept@example.com", password, next: "/events?status=failed" });
    expect(kept.status).toBe(303);
    expect(kept.headers.get("location")).toBe("/events?status=failed");
  });

  it("carries next from the login page's address into its form", async () => {
    const page = await (await new DashboardClient(t.rehook.url).get("/login?next=%2Fevents%3Fstatus%3Dfailed")).text();
    expect(page).toContain('name="next" value="/events?status=failed"');
    // Sign-up is open (SIGNUP unset): the page offers it, keeping next.
    expect(page).toContain('href="/signup?next=%2Fevents%3Fstatus%3Dfailed"');
  });
});
