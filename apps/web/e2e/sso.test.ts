import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sink } from "@rehook/vitest-config/sink";
import { startOpenIdProvider, type TestOpenIdProvider } from "../test/openid-provider.js";
import type { TestServer } from "../test/test-server.js";
import { launchBrowser, type Browser } from "./browser.js";
import { openDashboard, type Dashboard } from "./fixture.js";

// Single sign-on in Chromium, from the login page's button to the dashboard, against a real
// OpenID provider (oidc-provider) on loopback, under the dashboard's own Content-Security-Policy
// (form-action 'self'): every redirect of the flow (to the provider, through it, back to the
// callback, and on to the page asked for or the login page) as the browser really follows it.

let provider: TestOpenIdProvider;
let t: TestServer;
let page: Page;
let consoleErrors: string[];
let shot: Dashboard["shot"];
let watch: Dashboard["watch"];
let elsewhere: Sink;
/** A second browser: cookies of its own, nothing signed in. */
let fresh: Browser | undefined;

beforeAll(async () => {
  provider = await startOpenIdProvider();
  // A page on another origin that links to the sign-in (what an attacker's page could do).
  const dashboard = await openDashboard({
    sinks: { elsewhere: (_req, res) => res.writeHead(200, { "content-type": "text/html" }).end(`<a href="${t.rehook.url}/auth/oidc?next=%2Fevents">Sign in</a>`) },
    env: () => ({ OIDC_ISSUER: provider.issuer, OIDC_CLIENT_ID: provider.clientId, OIDC_CLIENT_SECRET: provider.clientSecret, OIDC_NAME: "Acme ID" }),
  });
  ({ t, page, consoleErrors, shot, watch, sinks: { elsewhere } } = dashboard);
  provider.allowRedirect(`${t.rehook.url}/auth/oidc/callback`);
  return async () => {
    await dashboard.close();
    await provider.close();
  };
});
afterAll(async () => {
  await fresh?.close();
  // A blocked redirect shows up here ("Refused to send form data … violates … form-action").
  expect(consoleErrors).toEqual([]);
});

const ssoButton = (target: Page) => target.getByTestId("sso-button");

describe("single sign-on in Chromium", () => {
  it("goes from the login page's button through the provider to the page asked for, signed in", async () => {
    provider.signInAs({ sub: "ada-1", email: "ada@example.com", email_verified: true });
    await page.goto(`${t.rehook.url}/login?next=%2Fevents`);
    await shot("sso-login");
    await ssoButton(page).click();
    await page.waitForURL(`${t.rehook.url}/events`);
    await page.getByRole("form", { name: "Filter events" }).waitFor();
    const cookies = await page.context().cookies(t.rehook.url);
    expect(cookies.map((cookie) => cookie.name)).toContain("rehook_session");
    // The account SSO made (SIGNUP=open) is the one signed in.
    const users = await t.db.query<{ email: string }>("select u.email from users u join user_identities i on i.user_id = u.id where i.subject = 'ada-1'");
    expect(users).toEqual([{ email: "ada@example.com" }]);
  });

  it("comes back to the login page with the reason when the provider's answer is refused", async () => {
    fresh = await launchBrowser();
    const other = await fresh.context.newPage();
    watch(other);
    provider.signInAs({ sub: "bob-1", email: "bob@example.com", email_verified: false });
    await other.goto(`${t.rehook.url}/login`);
    await ssoButton(other).click();
    await other.waitForURL(`${t.rehook.url}/login?sso_error=unverified_email`);
    await other.getByText(/has not verified your email/).waitFor();
    await shot("sso-refused", { page: other });
    expect((await other.context().cookies(t.rehook.url)).map((cookie) => cookie.name)).not.toContain("rehook_session");
  });

  it("starts no sign-in from a link on another site (or another port of this host)", async () => {
    const other = await fresh!.context.newPage();
    for (const host of ["localhost", "127.0.0.1"]) {
      provider.signInAs({ sub: "ada-1", email: "ada@example.com", email_verified: true });
      await other.goto(`http://${host}:${elsewhere.port}/`);
      await other.getByRole("link", { name: "Sign in" }).click();
      // Back on the login page, which says why (a fixed code, nothing from the request).
      await other.waitForURL(`${t.rehook.url}/login?sso_error=foreign_start`);
      await other.getByText("Sign-in could not start from this page").waitFor();
      expect((await other.context().cookies(t.rehook.url)).map((cookie) => cookie.name)).not.toContain("rehook_session");
    }
    await other.close();
  });
});
