import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import type { Sink } from "@rehook/vitest-config/sink";
import type { TestServer } from "../test/test-server.js";
import { createEndpoint, openDashboard, signUp, type Dashboard } from "./fixture.js";

// Settings → Alert rules in a real browser: add a rule, send a test to a real webhook on
// loopback, see the last result (and the pacing of a second test), turn it off and delete it.
// Names are shown as text.

let t: TestServer;
let receiver: Sink;
let page: Page;
let consoleErrors: string[];
let shot: Dashboard["shot"];

beforeAll(async () => {
  const dashboard = await openDashboard({ sinks: { receiver: (_req, res) => res.end("ok") } });
  ({ t, page, consoleErrors, shot, sinks: { receiver } } = dashboard);
  return dashboard.close;
});

const HOSTILE = `<img src=x onerror="document.title='pwned'">`;
const rule = () => page.getByTestId("alert-rule").first();

describe("alert rules in a real browser", () => {
  it("adds a signed webhook rule for one endpoint, with its secret shown to the admin", async () => {
    await signUp(page, t.rehook.url, "alerts-e2e@example.com");
    await createEndpoint(page, "Payments");
    await page.getByRole("link", { name: "Settings", exact: true }).click();
    await page.getByRole("heading", { name: "Alert rules" }).waitFor();
    const form = page.locator("form.alert-rule-form");
    await form.getByLabel("Name").fill(HOSTILE);
    await form.getByLabel("When").selectOption("health_low");
    await form.getByLabel("Endpoint").selectOption({ label: "Payments" });
    await form.getByLabel("Send to").selectOption("webhook");
    await form.getByLabel("URL or email address").fill(`http://127.0.0.1:${receiver.port}/alerts`);
    await form.getByRole("button", { name: "Add rule" }).click();
    // The health trigger needs its threshold: the server says so, and nothing is saved.
    await expect.poll(() => form.getByRole("alert").textContent()).toMatch(/Give the health threshold/);
    await form.getByLabel("Threshold (%)").fill("90");
    await form.getByRole("button", { name: "Add rule" }).click();
    await rule().waitFor();
    expect(await rule().locator("strong").first().textContent()).toBe(HOSTILE);
    expect(await rule().textContent()).toContain("Health below 90% · Payments · Webhook (signed, Standard Webhooks)");
    await rule().getByText("Signing secret").click();
    expect(await rule().locator("code").textContent()).toMatch(/^whsec_/);
    expect(await page.title()).not.toBe("pwned");
  });

  it("sends a test to the webhook, signed, and shows the result as the rule's last", async () => {
    await rule().getByRole("button", { name: "Send a test" }).click();
    await expect.poll(() => receiver.received.length, { timeout: 10_000 }).toBe(1);
    const raw = receiver.received[0]!.rawHeaders;
    expect(raw[raw.findIndex((name) => name.toLowerCase() === "webhook-signature") + 1]).toMatch(/^v1,/);
    expect(JSON.parse(receiver.received[0]!.body.toString())).toMatchObject({ type: "alert.health_low", data: { title: "Test alert from Rehook" } });
    await expect.poll(() => rule().getByTestId("alert-rule-reply").textContent()).toBe("Test alert sent: check the channel.");
    await expect.poll(() => rule().getByTestId("alert-rule-last").textContent()).toMatch(/^Last: test delivered, /);
    await shot("settings-alert-rules");
  });

  it("paces tests: a second one right away is refused with how long to wait, and nothing is sent", async () => {
    await rule().getByRole("button", { name: "Send a test" }).click();
    await expect.poll(() => rule().getByTestId("alert-rule-reply").textContent()).toMatch(/^This rule was tested less than 30 s ago: a rule sends at most one test every 30 s\. Try again in \d+ s\.$/);
    expect(await rule().getByTestId("alert-rule-reply").getAttribute("role")).toBe("alert");
    expect(receiver.received).toHaveLength(1);
  });

  it("turns the rule off and deletes it", async () => {
    await rule().getByRole("button", { name: "Turn off" }).click();
    await expect.poll(() => rule().getByTestId("alert-rule-state").textContent()).toBe("Off");
    await rule().getByRole("button", { name: "Delete" }).click();
    await expect.poll(() => page.getByTestId("alert-rule").count()).toBe(0);
  });

  it("logged no errors in the browser console", () => {
    expect(consoleErrors).toEqual([]);
  });
});
