import type { Locator, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import type { Sink } from "@rehook/vitest-config/sink";
import type { TestServer } from "../test/test-server.js";
import { captureEvent, createEndpoint, openDashboard, signUp } from "./fixture.js";

// The Activity page's volume strip follows the endpoint filter, counts new events as they
// arrive (no reload), has a time axis, and says what a bar holds on hover; the endpoint
// page's charts say it too.

let t: TestServer;
let destination: Sink;
let page: Page;
let consoleErrors: string[];
let ordersId = "";

beforeAll(async () => {
  const dashboard = await openDashboard({ sinks: { destination: (_req, res) => res.end("ok") } });
  ({ t, page, consoleErrors, sinks: { destination } } = dashboard);
  return dashboard.close;
});

/** The little of the DOM these tests read (the e2e code is typed without the DOM's types). */
interface Box {
  getBoundingClientRect(): { top: number; height: number; left: number; width: number };
}
interface Canvas extends Box {
  width: number;
  height: number;
  getContext(kind: "2d"): { getImageData(x: number, y: number, width: number, height: number): { data: ArrayLike<number> } };
}

/** Painted pixels of the chart's canvas below its plot area (where a time axis writes its labels). */
function paintedUnderPlot(chart: Locator): Promise<number> {
  return chart.evaluate((element) => {
    const canvas = element.querySelector("canvas") as unknown as Canvas;
    const over = element.querySelector(".u-over") as unknown as Box;
    const scale = canvas.height / canvas.getBoundingClientRect().height;
    const top = Math.ceil((over.getBoundingClientRect().top + over.getBoundingClientRect().height - canvas.getBoundingClientRect().top) * scale);
    if (top >= canvas.height) return 0;
    const pixels = canvas.getContext("2d").getImageData(0, top, canvas.width, canvas.height - top).data;
    let painted = 0;
    for (let i = 3; i < pixels.length; i += 4) if (pixels[i]! > 0) painted += 1;
    return painted;
  });
}

/** The readouts shown while the pointer moves across the chart's plot area, left to right. */
async function hoverReadouts(chart: Locator, testId: string): Promise<string[]> {
  const over = (await chart.locator(".u-over").boundingBox())!;
  const seen: string[] = [];
  for (let x = over.x + 1; x < over.x + over.width; x += 4) {
    await page.mouse.move(x, over.y + over.height / 2);
    const readout = page.getByTestId(`${testId}-readout`);
    if (await readout.isVisible()) seen.push((await readout.textContent()) ?? "");
  }
  await page.mouse.move(0, 0);
  return seen;
}

describe("the volume strip", { timeout: 120_000 }, () => {
  it("follows the endpoint filter and counts new events without a reload", async () => {
    await signUp(page, t.rehook.url, "strip@example.com");
    const orders = await createEndpoint(page, "Orders", `http://127.0.0.1:${destination.port}/hook`);
    ordersId = orders.id;
    const other = await createEndpoint(page, "Other");
    for (let i = 0; i < 2; i += 1) await captureEvent(t.rehook.url, orders.slug, `{"n":${i}}`);
    await captureEvent(t.rehook.url, other.slug, "{}");

    await page.goto(`${t.rehook.url}/events?endpointId=${orders.id}`);
    const strip = page.getByTestId("volume-strip");
    expect(await strip.getAttribute("aria-label")).toBe("Events per 15 minutes over the last day, Orders: 2 captured, 0 failed");
    expect(await page.locator(".volume-strip-caption").textContent()).toContain("Last 24 hours · Orders");
    await page.getByTestId("live-indicator").waitFor();
    await expect.poll(() => page.getByTestId("live-indicator").getAttribute("data-state"), { timeout: 20_000 }).toBe("live");

    // A capture while the page is open: the strip counts it (the other endpoint's does not count).
    await captureEvent(t.rehook.url, orders.slug, '{"n":2}');
    await captureEvent(t.rehook.url, other.slug, "{}");
    await expect.poll(() => strip.getAttribute("aria-label"), { timeout: 20_000 }).toBe("Events per 15 minutes over the last day, Orders: 3 captured, 0 failed");

    // All endpoints again.
    await page.goto(`${t.rehook.url}/events`);
    expect(await strip.getAttribute("aria-label")).toBe("Events per 15 minutes over the last day, all endpoints: 5 captured, 0 failed");
  });

  it("draws a time axis under its bars and names the hovered bar's time and counts", async () => {
    const strip = page.getByTestId("volume-strip");
    // Once the live feed is open (its catch-up read asks for the strip's figures again, the same ones).
    await expect.poll(() => page.getByTestId("live-indicator").getAttribute("data-state"), { timeout: 20_000 }).toBe("live");
    await expect.poll(() => strip.getAttribute("data-drawn")).toBe("light");
    const plot = (await strip.locator(".u-over").boundingBox())!;
    const box = (await strip.boundingBox())!;
    // The plot leaves room under it, and the axis' labels are painted there.
    expect(box.y + box.height - (plot.y + plot.height)).toBeGreaterThanOrEqual(12);
    expect(await paintedUnderPlot(strip)).toBeGreaterThan(20);

    const readouts = await hoverReadouts(strip, "volume-strip");
    expect(readouts.length).toBeGreaterThan(10);
    for (const text of readouts) expect(text).toMatch(/^\d\d:\d\d · \d+ captured, \d+ failed$/);
    expect(readouts).toContainEqual(expect.stringMatching(/ · 5 captured, 0 failed$/));
  });

  it("and the endpoint page's events chart says what a bucket holds on hover", async () => {
    await page.goto(`${t.rehook.url}/endpoints/${ordersId}`);
    const events = page.getByTestId("events-chart");
    await expect.poll(() => events.getAttribute("data-drawn"), { timeout: 20_000 }).toBe("light");
    await events.scrollIntoViewIfNeeded();
    const readouts = await hoverReadouts(events, "events-chart");
    for (const text of readouts) expect(text).toMatch(/^\d\d:\d\d · \d+ captured, \d+ delivered, \d+ failed$/);
    expect(readouts).toContainEqual(expect.stringMatching(/ · 3 captured, 3 delivered, 0 failed$/));
    expect(consoleErrors).toEqual([]);
  });
});
