import { describe, expect, it } from "vitest";
import { emailDomain, loadConfig, ssoDomainAllowed } from "../src/index.js";

const provider = { OIDC_ISSUER: "https://id.example.com/realms/acme", OIDC_CLIENT_ID: "rehook", OIDC_CLIENT_SECRET: "s3cret" };

describe("single sign-on settings (OIDC_*, PASSWORD_LOGIN)", () => {
  it("is off by default, with the password form on", () => {
    expect(loadConfig({}, "/d")).toMatchObject({ sso: null, passwordLogin: true });
  });

  it("reads the provider, the button's name, allowed domains and the default team and role", () => {
    expect(loadConfig(provider, "/d").sso).toEqual({ issuer: provider.OIDC_ISSUER, clientId: "rehook", clientSecret: "s3cret", name: "SSO", allowedDomains: [], defaultTeam: null, defaultRole: "viewer" });
    const full = loadConfig({ ...provider, OIDC_NAME: "Acme ID", OIDC_ALLOWED_DOMAINS: " Acme.com,acme.co.uk ,", OIDC_DEFAULT_TEAM: "platform", OIDC_DEFAULT_ROLE: "developer", PASSWORD_LOGIN: "false" }, "/d");
    expect(full).toMatchObject({ passwordLogin: false, sso: { name: "Acme ID", allowedDomains: ["acme.com", "acme.co.uk"], defaultTeam: "platform", defaultRole: "developer" } });
  });

  it("refuses half a provider, options without one, an owner by default, and no way in at all", () => {
    expect(() => loadConfig({ OIDC_ISSUER: provider.OIDC_ISSUER }, "/d")).toThrow("invalid OIDC_CLIENT_ID: single sign-on needs OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET together");
    expect(() => loadConfig({ OIDC_ALLOWED_DOMAINS: "acme.com" }, "/d")).toThrow("invalid OIDC_ALLOWED_DOMAINS: it needs OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET");
    expect(() => loadConfig({ ...provider, OIDC_DEFAULT_ROLE: "admin" }, "/d")).toThrow(/invalid OIDC_DEFAULT_ROLE: it needs OIDC_DEFAULT_TEAM/);
    expect(() => loadConfig({ ...provider, OIDC_DEFAULT_TEAM: "t", OIDC_DEFAULT_ROLE: "owner" }, "/d")).toThrow(/invalid OIDC_DEFAULT_ROLE: must be one of viewer, developer, admin/);
    expect(() => loadConfig({ ...provider, OIDC_ALLOWED_DOMAINS: "acme.com,@evil" }, "/d")).toThrow(/invalid OIDC_ALLOWED_DOMAINS/);
    expect(() => loadConfig({ ...provider, OIDC_ISSUER: "ftp://id.example.com" }, "/d")).toThrow(/invalid OIDC_ISSUER/);
    expect(() => loadConfig({ PASSWORD_LOGIN: "false" }, "/d")).toThrow(/invalid PASSWORD_LOGIN: false leaves no way to sign in/);
  });

  it("matches an email's domain exactly, in any case; an empty list allows every domain", () => {
    expect(emailDomain("Ada@Acme.COM")).toBe("acme.com");
    expect(ssoDomainAllowed("ada@acme.com", ["acme.com"])).toBe(true);
    expect(ssoDomainAllowed("ada@evil-acme.com", ["acme.com"])).toBe(false);
    expect(ssoDomainAllowed("ada@acme.com.evil.example", ["acme.com"])).toBe(false);
    expect(ssoDomainAllowed("ada@sub.acme.com", ["acme.com"])).toBe(false);
    expect(ssoDomainAllowed("anyone@anywhere.example", [])).toBe(true);
  });
});
