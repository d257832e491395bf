import { describe, expect, it } from "vitest";
import { loadConfig } from "../src/index.js";

describe("CAPTURE_BASE_URL", () => {
  it("is BASE_URL when unset", () => {
    expect(loadConfig({ BASE_URL: "https://rehook.example.com/" }, "/d").captureBaseUrl).toBe("https://rehook.example.com");
    expect(loadConfig({}, "/d").captureBaseUrl).toBe("http://localhost:8080");
  });

  it("takes another host, trailing slash stripped, and leaves the dashboard's origins alone", () => {
    const config = loadConfig({ BASE_URL: "https://rehook.example.com", CAPTURE_BASE_URL: "https://hooks.example.net/" }, "/d");
    expect(config.captureBaseUrl).toBe("https://hooks.example.net");
    expect(config.baseUrl).toBe("https://rehook.example.com");
    expect(config.dashboardOrigins).toEqual(["https://rehook.example.com"]);
    // A subdomain of the dashboard's host is another host: the session cookie is host-only.
    expect(loadConfig({ BASE_URL: "https://rehook.example.com", CAPTURE_BASE_URL: "https://hooks.rehook.example.com" }, "/d").captureBaseUrl).toBe("https://hooks.rehook.example.com");
  });

  it("refuses a host the dashboard answers at, on any port: cookies do not keep to a port", () => {
    const refusals: Array<Record<string, string>> = [
      { BASE_URL: "https://rehook.example.com", CAPTURE_BASE_URL: "https://rehook.example.com" },
      { BASE_URL: "https://rehook.example.com", CAPTURE_BASE_URL: "https://REHOOK.example.com:8443" },
      { BASE_URL: "https://rehook.example.com", ALLOWED_ORIGINS: "https://admin.example.com", CAPTURE_BASE_URL: "http://admin.example.com:9000" },
      // Without BASE_URL the dashboard answers on loopback.
      { CAPTURE_BASE_URL: "http://127.0.0.1:9000" },
      { CAPTURE_BASE_URL: "http://[::1]:9000" },
    ];
    for (const env of refusals) expect(() => loadConfig(env, "/d"), JSON.stringify(env)).toThrow(/^invalid CAPTURE_BASE_URL: .* is a host the dashboard answers at/);
  });

  it("refuses what is not a plain http(s) address", () => {
    for (const value of ["hooks.example.com", "ftp://hooks.example.com", "https://hooks.example.com/?a=1", "https://user:pw@hooks.example.com"]) {
      expect(() => loadConfig({ BASE_URL: "https://rehook.example.com", CAPTURE_BASE_URL: value }, "/d"), value).toThrow(/^invalid CAPTURE_BASE_URL/);
    }
  });
});

describe("CAPTURE_ON_DASHBOARD_HOST", () => {
  const separate = { BASE_URL: "https://rehook.example.com", CAPTURE_BASE_URL: "https://hooks.example.net" };

  it("keeps captures on the dashboard's host unless set to false", () => {
    expect(loadConfig(separate, "/d").captureOnDashboardHost).toBe(true);
    expect(loadConfig({ ...separate, CAPTURE_ON_DASHBOARD_HOST: "false" }, "/d").captureOnDashboardHost).toBe(false);
    expect(loadConfig({ ...separate, CAPTURE_ON_DASHBOARD_HOST: "true" }, "/d").captureOnDashboardHost).toBe(true);
  });

  it("refuses false without CAPTURE_BASE_URL (capture URLs would answer nowhere), and a value that is not a boolean", () => {
    expect(() => loadConfig({ BASE_URL: "https://rehook.example.com", CAPTURE_ON_DASHBOARD_HOST: "false" }, "/d")).toThrow(
      /^invalid CAPTURE_ON_DASHBOARD_HOST: false needs CAPTURE_BASE_URL/,
    );
    expect(() => loadConfig({ ...separate, CAPTURE_ON_DASHBOARD_HOST: "off" }, "/d")).toThrow(/^invalid CAPTURE_ON_DASHBOARD_HOST/);
  });
});
