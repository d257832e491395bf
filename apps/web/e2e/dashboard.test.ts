import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import type { Sink } from "@rehook/vitest-config/sink";
import type { TestServer } from "../test/test-server.js";
import { captureEvent, openDashboard, type Dashboard } from "./fixture.js";

let t: TestServer;
let sink: Sink;
let page: Page;
let consoleErrors: string[];
let shot: Dashboard["shot"];

beforeAll(async () => {
  const dashboard = await openDashboard({
    sinks: {
      sink: (_req, res) => {
        res.setHeader("content-type", "application/json");
        res.end('{"ok":true}');
      },
    },
  });
  ({ t, page, consoleErrors, shot, sinks: { sink } } = dashboard);
  return dashboard.close;
});

/** A Stripe-looking event, with a repeated header whose order must survive. */
const capture = (slug: string, body: string) =>
  captureEvent(t.rehook.url, slug, body, [
    ["Content-Type", "application/json"],
    ["Stripe-Signature", "t=1700000000,v1=abc"],
    ["X-Dup", "first"],
    ["X-Dup", "second"],
  ]);

describe("dashboard in a real browser", () => {
  let endpointSlug = "";
  let eventId = "";

  it("signs up and lands on the endpoints page", async () => {
    await page.goto(`${t.rehook.url}/signup`);
    await shot("signup");
    await page.getByLabel("Email").fill("e2e@example.com");
    await page.getByLabel("Password").fill("a long enough password");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL(`${t.rehook.url}/`);
    await page.getByRole("heading", { name: "Endpoints" }).waitFor();
  });

  it("refuses an internal destination inline, then creates an endpoint", async () => {
    await page.getByLabel("Name").fill("Stripe prod");
    await page.getByLabel("Destination URL").fill("http://169.254.169.254/latest/meta-data/");
    await page.getByRole("button", { name: "Create endpoint" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toMatch(/blocked: cloud metadata address/);

    await page.getByLabel("Destination URL").fill(`http://127.0.0.1:${sink.port}/hooks`);
    await page.getByRole("button", { name: "Create endpoint" }).click();
    const row = page.getByTestId("endpoint-row").filter({ hasText: "Stripe prod" });
    await row.waitFor();
    const captureUrl = (await row.getByTestId("capture-url").textContent())!.trim();
    expect(captureUrl).toMatch(/\/api\/webhook\/stripe-prod-[a-z0-9]+$/);
    endpointSlug = captureUrl.split("/").pop()!;
    // A destination but nothing finished yet: said so, not a 0% health.
    await expect.poll(() => row.getByText("No deliveries yet").count()).toBe(1);
    await shot("endpoints");
  });

  it("shows a captured event in the open activity feed within 2 s, without a reload, and turns it delivered", async () => {
    await page.getByRole("link", { name: "Activity" }).click();
    await page.getByRole("heading", { name: "Activity" }).waitFor();
    await shot("activity-empty");
    const navigations: string[] = [];
    page.on("framenavigated", (frame) => navigations.push(frame.url()));
    const started = Date.now();
    eventId = await capture(endpointSlug, JSON.stringify({ id: "evt_1", type: "payment_intent.succeeded", data: { amount: 2000 } }));
    const row = page.locator(`[data-testid="event-row"][data-event-id="${eventId}"]`);
    await row.waitFor({ timeout: 2_000 });
    expect(Date.now() - started).toBeLessThan(2_000);
    await expect.poll(() => row.getAttribute("data-status"), { timeout: 10_000 }).toBe("delivered");
    expect(await row.textContent()).toContain("payment_intent.succeeded");
    expect(await row.textContent()).toMatch(/stripe/i);
    expect(navigations).toEqual([]);
    expect(sink.received).toHaveLength(1);
    await shot("activity");
  });

  it("opens the event: payload, headers in order and the destination's response", async () => {
    await page.locator(`[data-testid="event-row"][data-event-id="${eventId}"]`).getByRole("link").first().click();
    await page.waitForURL(`${t.rehook.url}/events/${eventId}`);
    await page.getByRole("tab", { name: "Payload" }).click();
    const payload = page.getByTestId("payload");
    await expect.poll(() => payload.locator('[data-pointer="/type"]').textContent()).toContain('"payment_intent.succeeded"');
    await page.getByRole("group", { name: "Show the body as" }).getByRole("button", { name: "Pretty" }).click();
    await expect.poll(() => payload.textContent()).toContain('"type": "payment_intent.succeeded"');
    await shot("event-payload");

    await page.getByRole("tab", { name: "Headers" }).click();
    const headerRows = page.getByTestId("header-row");
    const texts = await headerRows.allTextContents();
    const dupes = texts.filter((text) => text.includes("X-Dup"));
    expect(dupes).toHaveLength(2);
    expect(dupes[0]).toContain("first");
    expect(dupes[1]).toContain("second");
    expect(texts.some((text) => text.includes("Stripe-Signature"))).toBe(true);
    await shot("event-headers");

    await page.getByRole("tab", { name: "Response" }).click();
    const panel = page.getByRole("tabpanel");
    await expect.poll(() => panel.textContent()).toContain("200");
    expect(await panel.textContent()).toContain('"ok": true');
    await shot("event-response");
  });

  it("generates and revokes an API key, reveals and regenerates a secret, saves notification settings", async () => {
    await page.getByRole("link", { name: "Settings" }).click();
    await page.getByRole("heading", { name: "API keys" }).waitFor();

    await page.getByLabel("Key name").fill("ci");
    await page.getByRole("button", { name: "Generate key" }).click();
    const key = (await page.getByTestId("new-api-key").textContent())!.trim();
    expect(key).toMatch(/^pk_live_[0-9A-Za-z]{32,}$/);
    const keyRow = page.getByTestId("api-key-row").filter({ hasText: "ci" });
    await keyRow.waitFor();
    expect(await keyRow.textContent()).not.toContain(key);
    await keyRow.getByRole("button", { name: "Revoke" }).click();
    await expect.poll(() => keyRow.textContent()).toContain("Revoked");

    const secretRow = page.getByTestId("secret-row").filter({ hasText: "Stripe prod" });
    await secretRow.getByRole("button", { name: "Reveal" }).click();
    const secret = secretRow.getByTestId("secret-value");
    await expect.poll(() => secret.textContent()).toMatch(/^whsec_/);
    const first = await secret.textContent();
    await secretRow.getByRole("button", { name: "Regenerate" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Regenerate secret" }).click();
    await expect.poll(async () => (await secretRow.getByTestId("secret-value").textContent()) ?? "").toMatch(/^whsec_/);
    await expect.poll(() => secretRow.getByTestId("secret-value").textContent()).not.toBe(first);

    await page.getByLabel("Enable notifications").check();
    await page.getByLabel("Webhook URL").fill("https://hooks.slack.com/services/T000/B000/XXXX");
    await page.getByLabel("Failed").check();
    await page.getByRole("button", { name: "Save notifications" }).click();
    await expect.poll(() => page.getByRole("status").allTextContents()).toContainEqual(expect.stringContaining("Notification settings saved"));
    const stored = await t.db.query<{ enabled: boolean; webhook_url: string }>("select enabled, webhook_url from notification_settings");
    expect(stored).toEqual([{ enabled: true, webhook_url: "https://hooks.slack.com/services/T000/B000/XXXX" }]);
    await shot("settings");
  });

  it("logs out and is sent to /login from then on", async () => {
    await page.getByRole("button", { name: "Log out" }).click();
    await page.waitForURL(`${t.rehook.url}/login`);
    await page.goto(`${t.rehook.url}/settings`);
    await page.waitForURL(/\/login/);
    await shot("login");
    expect(consoleErrors).toEqual([]);
  });
});
