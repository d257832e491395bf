import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../test/test-server.js";
import { captureEvent, createEndpoint, openDashboard, signUp, type Dashboard } from "./fixture.js";

// Activity's filters in a real browser: a search box, an event type, a sender and a time
// range, applied from the URL, kept while new events arrive live, and cleared in one click.

let t: TestServer;
let page: Page;
let consoleErrors: string[];
let shot: Dashboard["shot"];
let close: () => Promise<void>;

beforeAll(async () => {
  const dashboard = await openDashboard();
  ({ t, page, consoleErrors, shot, close } = dashboard);
});
afterAll(() => close());

const rows = (target: Page) => target.locator('[data-testid="event-row"]');
const rowIds = async (target: Page) => rows(target).evaluateAll((elements) => elements.map((element) => element.getAttribute("data-event-id")));

describe("Activity filters", () => {
  it("searches bodies and headers, filters by type, source and time, and keeps the filter for live rows", async () => {
    await signUp(page, t.rehook.url, "filters@example.com");
    const { slug } = await createEndpoint(page, "Mixed senders");
    const invoice = await captureEvent(t.rehook.url, slug, '{"type":"invoice.paid","customer":"Ada Lovelace"}', [
      ["Content-Type", "application/json"],
      ["Stripe-Signature", "t=1,v1=x"],
    ]);
    const push = await captureEvent(t.rehook.url, slug, '{"ref":"refs/heads/main"}', [
      ["Content-Type", "application/json"],
      ["X-GitHub-Event", "push"],
      ["X-Request-Id", "trace-needle-9"],
    ]);
    const plain = await captureEvent(t.rehook.url, slug, '{"hello":"world"}');

    await page.goto(`${t.rehook.url}/events`);
    await expect.poll(() => rowIds(page)).toEqual([plain, push, invoice]);

    // Search: Enter applies it; a header value is found as well as body text, in either case.
    await page.getByLabel("Search").fill("LOVELACE");
    await page.getByLabel("Search").press("Enter");
    await page.waitForURL(/\?q=LOVELACE/);
    await expect.poll(() => rowIds(page)).toEqual([invoice]);
    await page.getByText("Searching the last 24 hours").waitFor();
    await shot("activity-search");
    await page.getByLabel("Search").fill("needle");
    await page.getByLabel("Search").press("Enter");
    await expect.poll(() => rowIds(page)).toEqual([push]);

    // New events arrive live only when they match: the non-matching one first, then a match.
    await page.locator('[data-testid="live-indicator"][data-state="live"]').waitFor();
    await captureEvent(t.rehook.url, slug, '{"nothing":"here"}');
    const found = await captureEvent(t.rehook.url, slug, '{"note":"another needle"}');
    await expect.poll(() => rowIds(page)).toEqual([found, push]);

    // Event type and source fields, and a time range from the menu (applied at once).
    await page.getByRole("link", { name: "Clear filters" }).first().click();
    await page.waitForURL(`${t.rehook.url}/events`);
    await page.getByLabel("Event type").fill("push");
    await page.getByLabel("Event type").press("Enter");
    await expect.poll(() => rowIds(page)).toEqual([push]);
    await page.getByLabel("Event type").fill("");
    await page.getByLabel("Source").fill("stripe");
    await page.getByLabel("Source").press("Enter");
    await expect.poll(() => rowIds(page)).toEqual([invoice]);
    await page.getByLabel("Time").selectOption("1h");
    await page.waitForURL(/since=1h/);
    await expect.poll(() => rowIds(page)).toEqual([invoice]);

    // Export carries the current filters: the download (the session's cookie) holds what the list shows.
    const exportLink = page.getByRole("link", { name: "Export NDJSON" });
    const href = new URL((await exportLink.getAttribute("href"))!, t.rehook.url);
    expect(href.pathname).toBe("/api/events/export");
    expect(href.searchParams.get("format")).toBe("ndjson");
    expect(href.searchParams.get("source")).toBe("stripe");
    expect(href.searchParams.get("received_after")).not.toBeNull();
    const download = await page.context().request.get(href.href);
    expect(download.status()).toBe(200);
    expect((await download.text()).trim().split("\n").map((line) => (JSON.parse(line) as { id: string }).id)).toEqual([invoice]);
    await shot("activity-export");

    // A filter nothing matches says so, with the way back.
    await page.getByLabel("Source").fill("shopify");
    await page.getByLabel("Source").press("Enter");
    await page.getByRole("heading", { name: "No matching events" }).waitFor();
    await page.getByRole("link", { name: "Clear filters" }).first().click();
    await expect.poll(async () => (await rowIds(page)).length).toBe(5);
    expect(consoleErrors).toEqual([]);
  });
});
