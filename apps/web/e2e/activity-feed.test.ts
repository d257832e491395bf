import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { head, rawRequest } from "../test/raw-http.js";
import type { TestServer } from "../test/test-server.js";
import { launchBrowser, type Browser } from "./browser.js";
import { createEndpoint, openDashboard, signUp, type Dashboard } from "./fixture.js";

// The Activity feed in a real browser: rows you can scan (method, path, response, size, exact
// time), the split view with its keyboard, Pause, "resolved" and the Failed filter
// that hides it, the event's real forward URL, and the Live badge following the connection.

let t: TestServer;
let page: Page;
let browser: Browser;
let consoleErrors: string[];
let shot: Dashboard["shot"];
let watch: Dashboard["watch"];
let close: () => Promise<void>;
// What the destination answers: 500 until a test says otherwise.
let destinationStatus = 500;
let sinkPort: number;

beforeAll(async () => {
  const dashboard = await openDashboard({
    sinks: {
      destination: (_req, res) => {
        res.writeHead(destinationStatus, { "Content-Type": "text/plain" });
        res.end(destinationStatus === 200 ? "ok" : "boom");
      },
    },
  });
  ({ t, page, browser, consoleErrors, shot, watch, close } = dashboard);
  sinkPort = dashboard.sinks.destination.port;
});
afterAll(() => close());

const rows = (target: Page) => target.locator('[data-testid="event-row"]');
const row = (target: Page, id: string) => target.locator(`[data-testid="event-row"][data-event-id="${id}"]`);
const rowIds = (target: Page) => rows(target).evaluateAll((elements) => elements.map((element) => element.getAttribute("data-event-id")));
const badge = (target: Page) => target.getByTestId("live-indicator");

/** POSTs a body to the capture URL plus a sub-path and query; answers the event's id. */
async function capture(slug: string, target: string, body: string, headers: Array<[string, string]> = [["Content-Type", "application/json"]]): Promise<string> {
  const bytes = Buffer.from(body);
  const response = await rawRequest(t.rehook.url, [head("POST", `/api/webhook/${slug}${target}`, [...headers, ["Content-Length", String(bytes.length)]]), bytes]);
  expect(response.status).toBe(200);
  return JSON.parse(response.body).eventId as string;
}

describe("Activity feed", () => {
  let slug: string;
  let failed: string;
  let shopify: string;

  it("rows show method, path and query, response code, size, the exact time on hover and the detected sender", async () => {
    await signUp(page, t.rehook.url, "feed@example.com");
    ({ slug } = await createEndpoint(page, "Orders", `http://127.0.0.1:${sinkPort}/hooks`));
    failed = await capture(slug, "/orders/7?attempt=1&x=y", '{"type":"order.created","id":7}');
    shopify = await capture(slug, "", '{"id":1}', [
      ["Content-Type", "application/json"],
      ["User-Agent", "Shopify-Captain-Hook"],
    ]);

    await page.goto(`${t.rehook.url}/events`);
    await expect.poll(() => rowIds(page)).toEqual([shopify, failed]);
    const first = row(page, failed);
    await expect.poll(() => first.getAttribute("data-status")).toBe("failed");
    expect(await first.getByTestId("row-method").textContent()).toBe("POST");
    expect(await first.getByTestId("row-request").locator(".request-path").getAttribute("title")).toBe("/orders/7?attempt=1&x=y");
    expect(await first.getByTestId("row-response").textContent()).toContain("500");
    expect(await first.getByTestId("row-size").textContent()).toBe("31 B");
    const time = first.locator("time");
    expect(new Date((await time.getAttribute("datetime"))!).getTime()).not.toBeNaN();
    expect(await time.getAttribute("title")).toMatch(/\d{1,2}:\d{2}/);
    expect(await row(page, shopify).locator(".source-chip").textContent()).toBe("shopify");
    expect(await row(page, shopify).getByTestId("row-request").locator(".request-path").textContent()).toBe("/");
    await shot("activity-feed-rows");
  });

  it("split view: j/k move the selection and the preview, / focuses search, Enter opens the event", async () => {
    await expect.poll(() => page.getByTestId("feed-layout").getAttribute("data-split")).toBe("true");
    // The newest row is selected at first; its payload is read into the preview.
    await expect.poll(() => page.getByTestId("event-preview").getAttribute("data-event-id")).toBe(shopify);
    await page.getByTestId("preview-payload").waitFor();
    await page.keyboard.press("j");
    await expect.poll(() => row(page, failed).getAttribute("aria-selected")).toBe("true");
    await expect.poll(() => page.getByTestId("event-preview").getAttribute("data-event-id")).toBe(failed);
    expect(await page.getByTestId("preview-request").textContent()).toContain("/orders/7?attempt=1&x=y");
    await expect.poll(() => page.getByTestId("preview-payload").textContent()).toContain("order.created");
    await shot("activity-split-view");
    await page.keyboard.press("k");
    await expect.poll(() => page.getByTestId("event-preview").getAttribute("data-event-id")).toBe(shopify);
    await page.keyboard.press("j");
    await expect.poll(() => page.getByTestId("event-preview").getAttribute("data-event-id")).toBe(failed);

    // `/` focuses the search, and j typed there is text, not a move.
    await page.keyboard.press("/");
    await expect.poll(() => page.evaluate<string | undefined>("document.activeElement?.id")).toBe("filter-search");
    await page.keyboard.type("j");
    expect(await page.getByLabel("Search").inputValue()).toBe("j");
    await page.getByLabel("Search").fill("");

    // A click selects in the split view (no navigation); Enter opens the selected event.
    await row(page, failed).locator(".cell-size").click();
    await expect.poll(() => row(page, failed).getAttribute("aria-selected")).toBe("true");
    expect(page.url()).toBe(`${t.rehook.url}/events`);
    await page.keyboard.press("Enter");
    await page.waitForURL(`${t.rehook.url}/events/${failed}`);
    // The URL actually requested: the destination with the sub-path and query.
    expect(await page.getByTestId("destination-url").textContent()).toBe(`http://127.0.0.1:${sinkPort}/hooks/orders/7?attempt=1&x=y`);
    expect(await page.getByTestId("resolved").count()).toBe(0);
  });

  it("a replay reached by keyboard that delivers marks the event resolved; the Failed filter can hide it", async () => {
    destinationStatus = 200;
    await page.goto(`${t.rehook.url}/events`);
    await rows(page).first().waitFor();
    // Live means the page is hydrated: its key handlers are attached (a key pressed earlier is lost).
    await page.locator('[data-testid="live-indicator"][data-state="live"]').waitFor();
    await page.keyboard.press("j");
    await expect.poll(() => row(page, failed).getAttribute("aria-selected"), { timeout: 5_000 }).toBe("true");
    // From the selected row, Tab reaches its links, then its replay button.
    const replayButton = row(page, failed).getByRole("button", { name: "Replay to original" });
    for (let presses = 0; presses < 5 && !(await replayButton.evaluate((element) => element.matches(":focus"))); presses += 1) await page.keyboard.press("Tab");
    expect(await replayButton.evaluate((element) => element.matches(":focus"))).toBe(true);
    const opacity = `getComputedStyle(document.querySelector('[data-event-id="${failed}"] .row-replay-button')).opacity`;
    await expect.poll(() => page.evaluate<string>(opacity), { timeout: 5_000 }).toBe("1");
    await page.keyboard.press("Enter");
    await expect.poll(() => row(page, failed).getByTestId("row-replay-result").getAttribute("data-status"), { timeout: 10_000 }).toBe("delivered");
    await row(page, failed).getByTestId("resolved").waitFor();

    // From the server after a reload: still Failed (the spec keeps the status), resolved by replay.
    await page.reload();
    await row(page, failed).getByTestId("resolved").waitFor();
    expect(await row(page, failed).getAttribute("data-status")).toBe("failed");
    await shot("activity-resolved-by-replay");
    await page.goto(`${t.rehook.url}/events/${failed}`);
    await page.getByTestId("resolved").waitFor();
    await shot("event-resolved-by-replay");

    await page.goto(`${t.rehook.url}/events?status=failed`);
    // Both failed (the destination answered 500 to each); only one was resolved by a replay.
    await expect.poll(() => rowIds(page)).toEqual([shopify, failed]);
    await page.getByLabel("Resolved").selectOption("1");
    await page.waitForURL(/unresolved=1/);
    await expect.poll(() => rowIds(page)).toEqual([shopify]);
    await shot("activity-failed-unresolved");
  });

  it("Pause holds new live rows and counts them; Resume applies them", async () => {
    await page.goto(`${t.rehook.url}/events`);
    await page.locator('[data-testid="live-indicator"][data-state="live"]').waitFor();
    await page.getByTestId("feed-pause").click();
    const arrived = await capture(slug, "/paused", '{"type":"while.paused"}');
    await expect.poll(() => page.getByTestId("feed-held").textContent()).toBe("Paused: 1 new event waiting.");
    expect(await row(page, arrived).count()).toBe(0);
    await shot("activity-paused");
    await page.getByTestId("feed-resume").click();
    await row(page, arrived).waitFor();
    expect(await page.getByTestId("feed-held").count()).toBe(0);
  });

  it("the Live badge follows the connection: Offline with the last event, Reconnecting while the stream fails, Live again", async () => {
    await page.goto(`${t.rehook.url}/events`);
    await page.locator('[data-testid="live-indicator"][data-state="live"]').waitFor();
    expect(await page.getByTestId("live-last-event").count()).toBe(0);

    // The browser goes offline.
    await browser.context.setOffline(true);
    await page.locator('[data-testid="live-indicator"][data-state="offline"]').waitFor();
    expect(await page.getByTestId("live-last-event").textContent()).toMatch(/^last event received /);
    await shot("activity-live-offline");

    // Back online, but the stream itself fails: Reconnecting, then Offline once retries have failed long enough.
    await page.route("**/trpc/events.live**", (route) => route.abort("connectionrefused"));
    await browser.context.setOffline(false);
    await page.locator('[data-testid="live-indicator"][data-state="reconnecting"]').waitFor();
    expect(await badge(page).textContent()).toBe("Reconnecting…");
    await shot("activity-live-reconnecting");
    await page.locator('[data-testid="live-indicator"][data-state="offline"]').waitFor({ timeout: 20_000 });

    // The stream recovers: Live, and new events arrive again.
    await page.unroute("**/trpc/events.live**");
    await page.locator('[data-testid="live-indicator"][data-state="live"]').waitFor({ timeout: 30_000 });
    const after = await capture(slug, "/after", '{"type":"after.reconnect"}');
    await row(page, after).waitFor();
    expect(consoleErrors.filter((error) => !/ERR_CONNECTION_REFUSED|ERR_INTERNET_DISCONNECTED|Failed to load resource/.test(error))).toEqual([]);
  });

  it("dark and phone", async () => {
    for (const [name, options] of [
      ["dark", { colorScheme: "dark" as const }],
      ["phone", { width: 390, height: 844 }],
      ["phone-dark", { colorScheme: "dark" as const, width: 390, height: 844 }],
    ] as const) {
      const other = await launchBrowser(options);
      try {
        await other.context.addCookies(await browser.context.cookies());
        const target = await other.context.newPage();
        watch(target);
        await target.goto(`${t.rehook.url}/events`);
        await rows(target).first().waitFor();
        await target.locator('[data-testid="live-indicator"][data-state="live"]').waitFor();
        const overflow = await target.evaluate<number>("document.documentElement.scrollWidth - document.documentElement.clientWidth");
        expect(overflow, name).toBeLessThanOrEqual(0);
        expect(await target.getByTestId("feed-layout").getAttribute("data-split")).toBe(name === "dark" ? "true" : "false");
        await shot(`activity-feed-${name}`, { page: target });
        await target.goto(`${t.rehook.url}/events/${failed}`);
        await target.getByTestId("resolved").waitFor();
        await shot(`event-resolved-${name}`, { page: target });
      } finally {
        await other.close();
      }
    }
    expect(consoleErrors.filter((error) => !/ERR_CONNECTION_REFUSED|ERR_INTERNET_DISCONNECTED|Failed to load resource/.test(error))).toEqual([]);
  }, 90_000);
});
