import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../test/test-server.js";
import { captureEvent, createEndpoint, openDashboard, signUp, type Dashboard } from "./fixture.js";

// On a phone (390×844) the Activity filters fold behind a "Filters" button, so the first
// event shows on the first screen; wider screens show the form as before.

let t: TestServer;
let page: Page;
let consoleErrors: string[];
let shot: Dashboard["shot"];

beforeAll(async () => {
  const dashboard = await openDashboard();
  ({ t, page, consoleErrors, shot } = dashboard);
  return dashboard.close;
});

describe("the Activity filters on a phone", { timeout: 90_000 }, () => {
  it("fold behind a Filters button that says how many apply", async () => {
    await signUp(page, t.rehook.url, "phone@example.com");
    const { slug } = await createEndpoint(page, "Orders");
    const id = await captureEvent(t.rehook.url, slug, '{"type":"order.created"}');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${t.rehook.url}/events`);

    const form = page.getByRole("form", { name: "Filter events" });
    const toggle = page.getByRole("button", { name: "Filters" });
    await toggle.waitFor();
    expect(await form.isVisible()).toBe(false);
    expect(await toggle.getAttribute("aria-expanded")).toBe("false");
    // The first event starts on the first screen.
    const row = page.locator(`[data-testid="event-row"][data-event-id="${id}"]`);
    await row.waitFor();
    expect((await row.boundingBox())!.y).toBeLessThan(844 - 40);
    await shot("phone-filters-folded", { fullPage: false });

    await toggle.click();
    expect(await toggle.getAttribute("aria-expanded")).toBe("true");
    await form.waitFor();
    await form.getByLabel("Status").selectOption("captured");
    await page.waitForURL(/\?status=captured$/);
    // Still open after the filter applied; the button counts the filter.
    await expect.poll(() => page.getByRole("button", { name: "Filters (1)" }).getAttribute("aria-expanded")).toBe("true");
    expect(await form.isVisible()).toBe(true);
    await shot("phone-filters-open", { fullPage: false });
    await page.getByRole("button", { name: "Filters (1)" }).click();
    expect(await form.isVisible()).toBe(false);
  });

  it("show the form itself on a wide screen, with no button", async () => {
    await page.setViewportSize({ width: 1280, height: 860 });
    const form = page.getByRole("form", { name: "Filter events" });
    await form.waitFor();
    expect(await page.getByTestId("filters-toggle").isVisible()).toBe(false);
    expect(consoleErrors).toEqual([]);
  });
});
