import type { IncomingMessage } from "node:http";
import { describe, expect, it } from "vitest";
import { clientIp, createOriginPolicy } from "../src/index.js";

function request(headers: Record<string, string>, remoteAddress = "127.0.0.1"): IncomingMessage {
  return { headers, socket: { remoteAddress } } as unknown as IncomingMessage;
}

describe("origin policy", () => {
  const policy = createOriginPolicy({ origins: ["https://rehook.example.com", "https://admin.example.com"] });

  it("knows its hosts from configuration only", () => {
    expect(policy.isOwnHost("rehook.example.com")).toBe(true);
    expect(policy.isOwnHost("REHOOK.example.com")).toBe(true);
    expect(policy.isOwnHost("admin.example.com")).toBe(true);
    expect(policy.isOwnHost("attacker.example")).toBe(false);
    expect(policy.isOwnHost(undefined)).toBe(false);
    expect(policy.originFor("admin.example.com")).toBe("https://admin.example.com");
    expect(policy.originFor("attacker.example")).toBe("https://rehook.example.com");
  });

  it("takes same-origin from Origin, or from Sec-Fetch-Site when Origin is absent, never from Host", () => {
    expect(policy.isSameOrigin(request({ origin: "https://rehook.example.com" }))).toBe(true);
    expect(policy.isSameOrigin(request({ origin: "https://attacker.example", host: "attacker.example" }))).toBe(false);
    expect(policy.isSameOrigin(request({ "sec-fetch-site": "same-origin" }))).toBe(true);
    expect(policy.isSameOrigin(request({ "sec-fetch-site": "cross-site" }))).toBe(false);
  });

  it("adds loopback origins on the bound port when BASE_URL was not set", () => {
    let port: number | undefined;
    const local = createOriginPolicy({ origins: ["http://localhost:0"], loopbackPort: () => port });
    expect(local.isOwnHost("127.0.0.1:4321")).toBe(false);
    port = 4321;
    expect(local.isOwnHost("127.0.0.1:4321")).toBe(true);
    expect(local.isOwnHost("[::1]:4321")).toBe(true);
    expect(local.isOwnHost("localhost:4321")).toBe(true);
    expect(local.isOwnHost("127.0.0.1:4322")).toBe(false);
  });
});

describe("client address", () => {
  it("is the socket's peer unless proxies are trusted", () => {
    expect(clientIp(request({ "x-forwarded-for": "6.6.6.6" }, "192.0.2.1"), 0)).toBe("192.0.2.1");
  });

  it("is the right-most address the trusted proxies did not add", () => {
    const req = request({ "x-forwarded-for": "6.6.6.6, 198.51.100.1, 203.0.113.2" }, "10.0.0.1");
    expect(clientIp(req, 1)).toBe("203.0.113.2");
    expect(clientIp(req, 2)).toBe("198.51.100.1");
    expect(clientIp(req, 3)).toBe("6.6.6.6");
    expect(clientIp(req, 9)).toBe("6.6.6.6");
    expect(clientIp(request({}, "10.0.0.1"), 1)).toBe("10.0.0.1");
  });

  it("drops the port a load balancer wrote, and is unknown (null) when the entry is not an address", () => {
    expect(clientIp(request({ "x-forwarded-for": "203.0.113.2:51234" }, "10.0.0.1"), 1)).toBe("203.0.113.2");
    expect(clientIp(request({ "x-forwarded-for": "[2001:db8::7]:443" }, "10.0.0.1"), 1)).toBe("2001:db8::7");
    expect(clientIp(request({ "x-forwarded-for": "unknown" }, "10.0.0.1"), 1)).toBeNull();
    expect(clientIp(request({}, "::ffff:192.0.2.1"), 0)).toBe("192.0.2.1");
  });
});
