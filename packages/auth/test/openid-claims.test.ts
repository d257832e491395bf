import { describe, expect, it } from "vitest";
import { isEntraIssuer, verifiedEmail } from "../src/index.js";

const TENANT = "9188040d-6c67-4c5b-b112-36a304b66dad";

describe("a verified email in an ID token", () => {
  it("is email_verified from any issuer (true, or the strings some providers send)", () => {
    for (const value of [true, "true", 1, "1"]) expect(verifiedEmail({ email_verified: value }, "https://keycloak.example.com/realms/acme")).toBe(true);
    for (const value of [false, "false", 0, undefined, null]) expect(verifiedEmail({ email_verified: value }, "https://keycloak.example.com/realms/acme")).toBe(false);
  });

  it("is xms_edov from a Microsoft Entra tenant's issuer, in every cloud", () => {
    for (const host of ["login.microsoftonline.com", "login.microsoftonline.us", "login.chinacloudapi.cn", "login.partner.microsoftonline.cn"]) {
      expect(verifiedEmail({ xms_edov: true }, `https://${host}/${TENANT}/v2.0`)).toBe(true);
    }
    expect(verifiedEmail({ xms_edov: false }, `https://login.microsoftonline.com/${TENANT}/v2.0`)).toBe(false);
  });

  it("is never xms_edov from any other issuer, however close to Entra's it looks", () => {
    for (const issuer of [
      "https://keycloak.example.com/realms/acme",
      "http://127.0.0.1:4000",
      `http://login.microsoftonline.com/${TENANT}/v2.0`, // not https
      `https://login.microsoftonline.com.evil.example/${TENANT}/v2.0`,
      `https://evil.example/login.microsoftonline.com/${TENANT}/v2.0`,
      `https://login.microsoftonline.com/${TENANT}/v2.0/evil`,
      `https://login.microsoftonline.com/${TENANT}/v2.0/`,
      "https://login.microsoftonline.com/common/v2.0",
      "https://login.microsoftonline.com/organizations/v2.0",
      `https://sts.windows.net/${TENANT}/`, // the v1.0 endpoint: Rehook is set up with v2.0
      `https://acme.b2clogin.com/${TENANT}/v2.0/`, // Azure AD B2C
    ]) {
      expect(isEntraIssuer(issuer), issuer).toBe(false);
      expect(verifiedEmail({ xms_edov: true }, issuer), issuer).toBe(false);
    }
  });
});
