import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Sink } from "@rehook/vitest-config/sink";
import { startTestServer, type TestServer } from "../test/test-server.js";
import { captureEvent, createEndpoint, openDashboard, signUp, type Dashboard } from "./fixture.js";

const CHANNEL_NOT_FOUND_FIX = "the channel no longer exists or the app cannot post there: recreate the hook and save the new URL";

let t: TestServer;
/** A fake Slack provider: answers "ok", or 404 "channel_not_found" once the test says so. */
let provider: Sink;
let providerAnswer: "ok" | "channel_not_found" = "ok";
let page: Page;
let consoleErrors: string[];
let shot: Dashboard["shot"];
/** How far the server's clock is ahead of the wall clock: a test message is paced to one every 30 s per team, so a test moves it. */
let clockAhead = 0;
const after30Seconds = () => {
  clockAhead += 31_000;
};

beforeAll(async () => {
  const dashboard = await openDashboard({
    sinks: {
      provider: (_req, res) => {
        res.setHeader("content-type", "text/plain");
        if (providerAnswer === "ok") {
          res.end("ok");
        } else {
          res.statusCode = 404;
          res.end("channel_not_found");
        }
      },
    },
    env: ({ provider }) => ({ CHAT_HOOKS_BASE: `http://127.0.0.1:${provider.port}/services` }),
    now: () => Date.now() + clockAhead,
  });
  ({ t, page, consoleErrors, shot, sinks: { provider } } = dashboard);
  return dashboard.close;
});

/** The same page at phone width in the dark theme, then back. */
async function phoneShot(name: string) {
  // Reduced motion: no colour transitions half-way through in the picture.
  await page.emulateMedia({ colorScheme: "dark", reducedMotion: "reduce" });
  await page.setViewportSize({ width: 390, height: 844 });
  // Every top-nav link fits the phone's width (no hidden "API" behind a scroll).
  const nav = page.getByRole("navigation", { name: "Main" });
  await expect.poll(() => nav.evaluate((element) => element.scrollWidth <= element.clientWidth)).toBe(true);
  await shot(name);
  await page.emulateMedia({ colorScheme: "light", reducedMotion: "no-preference" });
  await page.setViewportSize({ width: 1280, height: 860 });
}

const hookUrl = (hook: string) => `http://127.0.0.1:${provider.port}/services/T000/B000/${hook}`;
const testResult = () => page.getByTestId("notifications-test-result");

describe("notification test message and API reference in a real browser", () => {
  it("signs up", async () => {
    await signUp(page, t.rehook.url, "settings-e2e@example.com");
  });

  it("says to save a URL first when the test message has nowhere to go", async () => {
    await page.getByRole("link", { name: "Settings", exact: true }).click();
    await page.getByRole("heading", { name: "Notifications" }).waitFor();
    await page.getByRole("button", { name: "Send test message" }).click();
    await expect.poll(() => testResult().textContent()).toContain("Save an incoming-webhook URL first, then send the test message.");
    expect(await testResult().getAttribute("role")).toBe("alert");
    expect(provider.received).toHaveLength(0);
  });

  it("saves the URL, sends a test message and shows the provider's refusal with its fix", async () => {
    await page.getByLabel("Enable notifications").check();
    await page.getByLabel("Webhook URL").fill(hookUrl("XXXX"));
    await page.getByLabel("Captured").check();
    await page.getByRole("button", { name: "Save notifications" }).click();
    await expect.poll(() => page.getByRole("status").allTextContents()).toContainEqual(expect.stringContaining("Notification settings saved"));
    await expect.poll(() => page.getByTestId("notifications-state").textContent()).toBe("On");

    await page.getByRole("button", { name: "Send test message" }).click();
    await expect.poll(() => testResult().textContent()).toBe("Test message sent: check the channel.");
    expect(await testResult().getAttribute("role")).toBe("status");
    expect(provider.received).toHaveLength(1);
    const post = provider.received[0]!;
    expect(post.method).toBe("POST");
    expect(post.url).toBe("/services/T000/B000/XXXX");
    const contentType = post.rawHeaders.find((_value, index, all) => index % 2 === 1 && all[index - 1]!.toLowerCase() === "content-type");
    expect(contentType).toMatch(/^application\/json/);
    const json = JSON.parse(post.body.toString("utf8")) as { blocks?: unknown };
    expect(Array.isArray(json.blocks)).toBe(true);
    expect((json.blocks as unknown[]).length).toBeGreaterThan(0);

    // Again right away: paced (one test message every 30 s per team), and nothing is posted.
    await page.getByRole("button", { name: "Send test message" }).click();
    await expect.poll(() => testResult().textContent()).toMatch(/This chat hook was tested less than 30 s ago: a chat hook sends at most one test every 30 s\. Try again in \d+ s\./);
    expect(await testResult().getAttribute("role")).toBe("alert");
    expect(provider.received).toHaveLength(1);

    providerAnswer = "channel_not_found";
    after30Seconds();
    await page.getByRole("button", { name: "Send test message" }).click();
    await expect.poll(() => testResult().textContent()).toContain("channel_not_found");
    expect(await testResult().getAttribute("role")).toBe("alert");
    expect(await testResult().textContent()).toContain(CHANNEL_NOT_FOUND_FIX);
    expect(provider.received).toHaveLength(2);
    // A test never pauses notifications.
    expect(await page.getByTestId("notifications-paused").count()).toBe(0);
    await shot("settings-notifications");
  });

  it("shows the paused banner when a real notification is refused, and a new URL resumes them", async () => {
    // A capture-only endpoint: its captured events are notified (the trigger saved above).
    const { slug } = await createEndpoint(page, "Inbox");
    await captureEvent(t.rehook.url, slug, '{"type":"ping"}');
    await expect.poll(() => provider.received.length, { timeout: 15_000 }).toBe(3);

    await page.getByRole("link", { name: "Settings", exact: true }).click();
    await page.waitForURL(`${t.rehook.url}/settings`);
    const banner = page.getByTestId("notifications-paused");
    await expect
      .poll(
        async () => {
          if ((await banner.count()) === 0) await page.reload();
          return banner.count();
        },
        { timeout: 15_000 },
      )
      .toBe(1);
    const text = await banner.textContent();
    expect(text).toContain("Notifications are paused");
    expect(text).toContain(`channel_not_found: ${CHANNEL_NOT_FOUND_FIX}`);
    expect(text).toContain("Saving a new webhook URL resumes notifications.");
    expect(await page.getByTestId("notifications-state").textContent()).toBe("Paused");
    await page.locator("#notifications").scrollIntoViewIfNeeded();
    await shot("settings-notifications-paused");
    await phoneShot("settings-notifications-phone-dark");

    providerAnswer = "ok";
    await page.getByLabel("Webhook URL").fill(hookUrl("YYYY"));
    await page.getByRole("button", { name: "Save notifications" }).click();
    await expect.poll(() => banner.count()).toBe(0);
    await expect.poll(() => page.getByTestId("notifications-state").textContent()).toBe("On");
    after30Seconds();
    await page.getByRole("button", { name: "Send test message" }).click();
    await expect.poll(() => testResult().textContent()).toBe("Test message sent: check the channel.");
    expect(provider.received.at(-1)!.url).toBe("/services/T000/B000/YYYY");
  });

  it("documents every operation of the OpenAPI document at /api-docs, with curl examples", async () => {
    const response = await fetch(`${t.rehook.url}/api/v1/openapi.json`);
    expect(response.status).toBe(200);
    const document = (await response.json()) as { paths: Record<string, Record<string, unknown>> };
    const operations = Object.entries(document.paths).flatMap(([route, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${route}`));

    await page.getByRole("link", { name: "API", exact: true }).click();
    await page.waitForURL(`${t.rehook.url}/api-docs`);
    await page.getByRole("heading", { name: "API reference", level: 1 }).waitFor();
    expect(await page.locator(".page-header").textContent()).toContain("Preview");
    expect(await page.getByTestId("api-base-url").textContent()).toBe(`${t.rehook.url}/api/v1`);
    expect(await page.getByRole("link", { name: "Settings → API keys" }).getAttribute("href")).toBe("/settings#api-keys");
    expect(await page.getByRole("link", { name: "OpenAPI document" }).getAttribute("href")).toBe("/api/v1/openapi.json");
    const intro = (await page.locator(".api-overview").textContent()) ?? "";
    for (const words of ["Authorization: Bearer pk_live_…", '{"error": {"code", "message", "details"?}}', "Rehook-Api-Version", "429", "Retry-After"]) {
      expect(intro).toContain(words);
    }

    const shown = await page.getByTestId("api-path").allTextContents();
    for (const route of Object.keys(document.paths)) expect(shown).toContain(route);
    for (const route of ["/events", "/events/{id}", "/events/{id}/replay", "/endpoints", "/endpoints/{id}"]) expect(shown).toContain(route);
    expect(shown).toHaveLength(operations.length);

    const curls = await page.getByTestId("curl-example").allTextContents();
    expect(curls).toHaveLength(operations.length);
    for (const curl of curls) {
      expect(curl).toMatch(/^curl /);
      expect(curl).toContain(`'${t.rehook.url}/api/v1/`);
      expect(curl).toContain('-H "Authorization: Bearer $REHOOK_API_KEY"');
    }
    const operation = (route: string) => page.locator(".api-operation").filter({ has: page.getByTestId("api-path").filter({ hasText: new RegExp(`^${route.replace(/[{}]/g, "\\$&")}$`) }) });
    const replay = operation("/events/{id}/replay");
    const replayCurl = (await replay.getByTestId("curl-example").textContent())!;
    expect(replayCurl).toContain(`curl -X POST '${t.rehook.url}/api/v1/events/{id}/replay'`);
    expect(replayCurl).toContain("-H 'Content-Type: application/json'");
    expect(replayCurl).toContain(`-d '{"destination_url":"https://example.com/hooks"}'`);
    expect(await replay.textContent()).toContain("destination_url");
    await replay.getByRole("button", { name: /Copy the curl example/ }).click();
    await expect.poll(() => replay.getByRole("button", { name: "Copied" }).count()).toBe(1);
    expect(await page.evaluate("navigator.clipboard.readText()")).toBe(replayCurl);
    const list = operation("/events");
    expect(await list.getByTestId("curl-example").textContent()).toMatch(/\/api\/v1\/events\?status=captured&signature=valid&limit=20&offset=0'/);
    // The parameters table: name, where, required, and the schema's type, enum and default.
    const statusRow = list.locator("tr", { has: page.locator("td", { hasText: /^status$/ }) });
    const statusText = await statusRow.textContent();
    for (const words of ["query", "Optional", "string", "captured", "pending", "delivered", "failed"]) expect(statusText).toContain(words);
    expect(await list.locator("tr", { has: page.locator("td", { hasText: /^limit$/ }) }).textContent()).toContain("Default 20");

    await shot("api-docs");
    await phoneShot("api-docs-phone-dark");
  });

  it("logs no errors in the browser console", () => {
    expect(consoleErrors).toEqual([]);
  });
});

describe("the API reference when the operator turned the public API off", () => {
  let off: TestServer;

  beforeAll(async () => {
    off = await startTestServer({ PUBLIC_API_ENABLED: "false" });
  });
  afterAll(async () => {
    await off?.close();
  });

  it("says so instead of listing operations", async () => {
    await signUp(page, off.rehook.url, "api-off@example.com");
    await page.goto(`${off.rehook.url}/api-docs`);
    await page.getByRole("heading", { name: "API reference", level: 1 }).waitFor();
    expect(await page.getByTestId("api-disabled").textContent()).toContain("PUBLIC_API_ENABLED=false");
    expect(await page.getByTestId("curl-example").count()).toBe(0);
    await shot("api-docs-disabled");
    expect(consoleErrors).toEqual([]);
  });
});
