import type { Locator, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import type { Sink } from "@rehook/vitest-config/sink";
import type { TestServer } from "../test/test-server.js";
import { captureEvent, createEndpoint, openDashboard, signUp, type Dashboard } from "./fixture.js";

// The activity charts with data: an endpoint forwarding to a loopback destination that
// answers some events 200 and others 500; its page's charts by range, the Activity page's
// volume strip, each an image named with its figures, drawn in light and dark and on a
// phone (e2e/screenshots/charts-*.png), with nothing refused by the page's CSP.

let t: TestServer;
let destination: Sink;
let page: Page;
let consoleErrors: string[];
let shot: Dashboard["shot"];

beforeAll(async () => {
  const dashboard = await openDashboard({
    sinks: {
      // Bodies that ask to fail get a 500, the others a 200.
      destination: (_req, res, body) => {
        res.statusCode = body.toString().includes('"fail":true') ? 500 : 200;
        res.setHeader("content-type", "application/json");
        res.end("{}");
      },
    },
  });
  ({ t, page, consoleErrors, shot, sinks: { destination } } = dashboard);
  return dashboard.close;
});

/** How far the page scrolls sideways (0: nothing sticks out of the screen). */
const overflow = () => page.evaluate<number>("document.documentElement.scrollWidth - document.documentElement.clientWidth");
const settle = () => page.evaluate("new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))");

/** The little of a canvas these tests read (the e2e code is typed without the DOM's types). */
interface Canvas {
  width: number;
  height: number;
  getContext(kind: "2d"): { getImageData(x: number, y: number, width: number, height: number): { data: ArrayLike<number> } };
  getBoundingClientRect(): { width: number };
}

/** Waits until the chart's canvas is painted in this theme, and answers how many of its pixels are not blank. */
async function drawn(chart: Locator, scheme: "light" | "dark" = "light"): Promise<number> {
  await expect.poll(() => chart.getAttribute("data-drawn")).toBe(scheme);
  expect(await chart.locator("canvas").count()).toBe(1);
  return chart.locator("canvas").evaluate((element) => {
    const canvas = element as unknown as Canvas;
    const pixels = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height).data;
    let painted = 0;
    for (let i = 3; i < pixels.length; i += 4) if (pixels[i]! > 0) painted += 1;
    return painted;
  });
}

describe("activity charts", { timeout: 90_000 }, () => {
  it("draw an endpoint's events by status and latency by range, and the Activity page's volume strip", async () => {
    await signUp(page, t.rehook.url, "charts@example.com");
    const { slug, id } = await createEndpoint(page, "Charts", `http://127.0.0.1:${destination.port}/hook`);
    for (let i = 0; i < 6; i += 1) await captureEvent(t.rehook.url, slug, i < 2 ? `{"n":${i},"fail":true}` : `{"n":${i}}`);

    // Outcomes are stored once the destination has answered: reload until the chart counts them.
    const events = page.getByTestId("events-chart");
    const latency = page.getByTestId("latency-chart");
    await expect
      .poll(
        async () => {
          await page.goto(`${t.rehook.url}/endpoints/${id}`);
          return events.getAttribute("aria-label");
        },
        { timeout: 20_000 },
      )
      .toBe("Events per 15 minutes over the last day by status: 6 captured, 4 delivered, 2 failed");
    expect(destination.received).toHaveLength(6);

    // Images named by what they show, figures included; the canvases painted.
    await expect.poll(() => page.getByRole("img", { name: /^Events per 15 minutes over the last day by status: 6 captured/ }).count()).toBe(1);
    expect(await latency.getAttribute("role")).toBe("img");
    expect(await latency.getAttribute("aria-label")).toMatch(/^Delivery latency per 15 minutes over the last day: p50 \d+ ms, p95 \d+(\.\d)? (ms|s)$/);
    expect(await drawn(events)).toBeGreaterThan(100);
    expect(await drawn(latency)).toBeGreaterThan(100);
    const legend = page.locator(".chart-legend").first();
    expect((await legend.textContent())!.replace(/\s+/g, " ")).toBe("Captured 6Delivered 4Failed 2");

    const activity = page.locator("#activity");
    const showActivity = () => activity.evaluate((card) => card.scrollIntoView({ block: "center" }));
    await showActivity();
    await page.emulateMedia({ colorScheme: "light", reducedMotion: "reduce" });
    await settle();
    await shot("charts-light", { fullPage: false });

    // The system switching to dark: the charts redraw in the dark theme's colours.
    await page.emulateMedia({ colorScheme: "dark", reducedMotion: "reduce" });
    expect(await drawn(events, "dark")).toBeGreaterThan(100);
    expect(await drawn(latency, "dark")).toBeGreaterThan(100);
    await settle();
    await shot("charts-dark", { fullPage: false });
    await page.emulateMedia({ colorScheme: "light", reducedMotion: "reduce" });
    await drawn(events);

    // The range is a link: the loader reads ?range=, the page stays where it is.
    const ranges = page.getByRole("navigation", { name: "Chart range" });
    expect(await ranges.getByRole("link", { name: "Day" }).getAttribute("aria-current")).toBe("true");
    await ranges.getByRole("link", { name: "Hour" }).click();
    await page.waitForURL(/\?range=hour$/);
    await expect.poll(() => events.getAttribute("aria-label")).toBe("Events per minute over the last hour by status: 6 captured, 4 delivered, 2 failed");
    expect(await drawn(events)).toBeGreaterThan(100);
    expect(await latency.getAttribute("aria-label")).toMatch(/^Delivery latency per minute over the last hour: p50 /);
    await ranges.getByRole("link", { name: "Week" }).click();
    await page.waitForURL(/\?range=week$/);
    await expect.poll(() => events.getAttribute("aria-label")).toBe("Events per hour over the last week by status: 6 captured, 4 delivered, 2 failed");
    expect(await drawn(events)).toBeGreaterThan(100);
    expect(await drawn(latency)).toBeGreaterThan(100);
    expect(await ranges.getByRole("link", { name: "Week" }).getAttribute("aria-current")).toBe("true");

    // A phone: the charts take the screen's width, one under the other, nothing sticks out.
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await expect.poll(overflow).toBe(0);
      await expect.poll(() => events.locator("canvas").evaluate((element) => (element as unknown as Canvas).getBoundingClientRect().width)).toBeLessThanOrEqual(390);
      const [first, second] = [await events.boundingBox(), await latency.boundingBox()];
      expect(second!.y).toBeGreaterThan(first!.y + first!.height);
      await showActivity();
      await settle();
      await shot("charts-phone", { fullPage: false });
    } finally {
      await page.setViewportSize({ width: 1280, height: 860 });
    }

    // The Activity page: a compact strip over the feed, for all endpoints.
    await page.getByRole("link", { name: "Activity", exact: true }).first().click();
    await page.getByRole("heading", { name: "Activity", level: 1 }).waitFor();
    const strip = page.getByTestId("volume-strip");
    expect(await strip.getAttribute("role")).toBe("img");
    expect(await strip.getAttribute("aria-label")).toBe("Events per 15 minutes over the last day, all endpoints: 6 captured, 2 failed");
    expect(await drawn(strip)).toBeGreaterThan(20);
    expect((await strip.boundingBox())!.height).toBeLessThanOrEqual(64);
    await shot("charts-activity-strip", { fullPage: false });
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await expect.poll(overflow).toBe(0);
      // The strip and its caption leave most of a phone's first screen to the feed.
      const section = (await page.locator(".volume-strip").boundingBox())!;
      expect(section.height).toBeLessThan(110);
      await settle();
      await shot("charts-activity-strip-phone", { fullPage: false });
    } finally {
      await page.setViewportSize({ width: 1280, height: 860 });
    }

    expect(consoleErrors).toEqual([]);
  });

  it("say so when there is nothing in the window", async () => {
    const { id } = await createEndpoint(page, "Quiet");
    await page.goto(`${t.rehook.url}/endpoints/${id}?range=hour`);
    const events = page.getByTestId("events-chart");
    expect(await events.getAttribute("aria-label")).toBe("Events per minute over the last hour by status: 0 captured, 0 delivered, 0 failed");
    expect(await events.textContent()).toBe("No events in this window.");
    expect(await page.getByTestId("latency-chart").textContent()).toBe("Capture only: nothing is forwarded.");
    expect(await events.locator("canvas").count()).toBe(0);
    expect(consoleErrors).toEqual([]);
  });
});
