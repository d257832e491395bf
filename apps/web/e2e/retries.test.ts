import type { Locator, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import type { Sink } from "@rehook/vitest-config/sink";
import type { TestServer } from "../test/test-server.js";
import { captureEvent, createEndpoint, openDashboard, openHydrated, signUp, type Dashboard } from "./fixture.js";

let t: TestServer;
/** The destination: answers 500 while `failing`, 200 after. */
let flaky: Sink;
let failing = true;
let page: Page;
let consoleErrors: string[];
let shot: Dashboard["shot"];

beforeAll(async () => {
  const dashboard = await openDashboard({
    sinks: {
      flaky: (_req, res) => {
        res.setHeader("content-type", "application/json");
        res.setHeader("x-sink-state", failing ? "down" : "up");
        if (failing) {
          res.statusCode = 500;
          res.end('{"error":"database is down"}');
        } else {
          res.end('{"ok":true}');
        }
      },
    },
    env: () => ({ FORWARD_TIMEOUT_MS: "2000" }),
  });
  ({ t, page, consoleErrors, shot, sinks: { flaky } } = dashboard);
  return dashboard.close;
});

/** How far the page scrolls sideways (0: nothing sticks out of the screen). */
const overflow = () => page.evaluate<number>("document.documentElement.scrollWidth - document.documentElement.clientWidth");

/**
 * The page at 375 px in the dark theme, checked for sideways scrolling and photographed whole,
 * then the screen with `detail` at its top (`<name>-detail`); then back.
 */
async function phoneShot(name: string, detail: Locator) {
  await page.emulateMedia({ colorScheme: "dark", reducedMotion: "reduce" });
  await page.setViewportSize({ width: 375, height: 812 });
  await expect.poll(overflow).toBe(0);
  await shot(name);
  await detail.evaluate((element) => element.scrollIntoView({ block: "start" }));
  await shot(`${name}-detail`, { fullPage: false });
  await page.emulateMedia({ colorScheme: "light", reducedMotion: "no-preference" });
  await page.setViewportSize({ width: 1280, height: 860 });
}

const capture = (slug: string, n: number) => captureEvent(t.rehook.url, slug, JSON.stringify({ type: "order.created", id: n }));

describe("retries, pausing and attempts in the dashboard", { timeout: 60_000 }, () => {
  let endpoint = { slug: "", id: "" };
  const events: string[] = [];

  it("saves a custom retry policy, then a preset with pausing after 2 failed attempts", async () => {
    await signUp(page, t.rehook.url, "retries@example.com");
    endpoint = await createEndpoint(page, "Orders", `http://127.0.0.1:${flaky.port}/hooks`);
    await page.goto(`${t.rehook.url}/endpoints/${endpoint.id}`);
    const retries = page.getByRole("region", { name: "Retries" });
    await expect.poll(() => retries.getByRole("radio", { name: /None/ }).isChecked()).toBe(true);

    // Custom: 3 attempts, 250 ms, then at most 2 s; a first delay under 100 ms is refused inline.
    await retries.getByRole("radio", { name: /Custom/ }).check();
    await retries.getByLabel("Max attempts").fill("3");
    await retries.getByLabel("First delay", { exact: true }).fill("50");
    await retries.getByLabel("First delay unit").selectOption("ms");
    await retries.getByRole("button", { name: "Save retries" }).click();
    await expect.poll(() => retries.getByRole("alert").textContent()).toMatch(/at least 100 ms/);
    await retries.getByLabel("First delay", { exact: true }).fill("250");
    await retries.getByLabel("Longest delay", { exact: true }).fill("2");
    await retries.getByLabel("Longest delay unit").selectOption("s");
    await retries.getByRole("button", { name: "Save retries" }).click();
    await expect.poll(() => retries.getByRole("status").allTextContents()).toContainEqual(expect.stringContaining("Retries saved"));
    await page.reload();
    await expect.poll(() => retries.getByRole("radio", { name: /Custom/ }).isChecked()).toBe(true);
    expect(await retries.getByLabel("Max attempts").inputValue()).toBe("3");
    expect(await retries.getByLabel("First delay", { exact: true }).inputValue()).toBe("250");
    expect(await retries.getByLabel("Longest delay unit").inputValue()).toBe("s");

    // The preset of about an hour, pausing after 2 consecutive failed attempts.
    await retries.getByRole("radio", { name: "5 attempts over about an hour" }).check();
    await retries.getByLabel("Pause forwarding after repeated failures").check();
    await retries.getByLabel("Consecutive failed attempts").fill("2");
    await retries.getByRole("button", { name: "Save retries" }).click();
    await expect.poll(() => retries.getByRole("status").allTextContents()).toContainEqual(expect.stringContaining("Retries saved"));
    await page.reload();
    expect(await retries.getByRole("radio", { name: "5 attempts over about an hour" }).isChecked()).toBe(true);
    expect(await retries.getByLabel("Consecutive failed attempts").inputValue()).toBe("2");
    const stored = await t.db.query<{ retry_max_attempts: number; pause_after_failures: number }>(
      // The endpoint's retry policy and breaker are its first destination's.
      "select retry_max_attempts, pause_after_failures from destinations where endpoint_id = $1 order by position limit 1",
      [endpoint.id],
    );
    expect(stored).toEqual([{ retry_max_attempts: 5, pause_after_failures: 2 }]);
  });

  it("pauses forwarding after 2 failed attempts: a banner with the reason, a badge on the list, new events wait", async () => {
    events.push(await capture(endpoint.slug, 1));
    events.push(await capture(endpoint.slug, 2));
    await expect.poll(() => flaky.received.length, { timeout: 10_000 }).toBe(2);

    const banner = page.getByTestId("forwarding-paused");
    await expect
      .poll(
        async () => {
          await page.reload();
          return banner.isVisible();
        },
        { timeout: 10_000, interval: 500 },
      )
      .toBe(true);
    const text = (await banner.textContent()) ?? "";
    expect(text).toContain("Forwarding is paused");
    expect(text).toMatch(/since (just now|\d+s ago)/);
    expect(text).toContain("wait as pending until you resume");
    expect((await page.getByTestId("paused-reason").textContent())?.trim()).not.toBe("");
    await shot("retries-endpoint-paused");
    await phoneShot("retries-endpoint-paused-phone", page.locator("main"));

    // A third event is captured but not sent while paused.
    events.push(await capture(endpoint.slug, 3));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(flaky.received).toHaveLength(2);

    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Endpoints" }).click();
    const row = page.getByTestId("endpoint-row").filter({ hasText: "Orders" });
    await expect.poll(() => row.getByTestId("forwarding-paused-badge").textContent()).toBe("Forwarding paused");
    await shot("retries-endpoints-list");
  });

  it("shows an event's attempt timeline, the next attempt, and an attempt's response", async () => {
    await page.goto(`${t.rehook.url}/events/${events[0]}`);
    const attempts = page.getByRole("region", { name: /Delivery attempts/ });
    const first = attempts.getByTestId("attempt-row").first();
    await first.waitFor();
    expect(await first.getAttribute("data-attempt")).toBe("1");
    expect(await first.textContent()).toContain("500");
    // The hour preset would wait about 4 minutes before the second attempt, but its destination
    // is paused: the event waits for Resume, and says which destination instead of a due time.
    await expect.poll(() => attempts.getByTestId("next-attempt-line").textContent()).toBe("Paused: sent once 127.0.0.1 is resumed.");
    expect(await page.getByTestId("paused-header").textContent()).toBe("Paused: sent once 127.0.0.1 is resumed");
    expect(await page.getByTestId("next-attempt-header").count()).toBe(0);
    expect(await attempts.getByTestId("next-attempt").textContent()).toBe("Paused: sent once 127.0.0.1 is resumed");
    expect(await attempts.getByTestId("event-destination-paused").textContent()).toContain("127.0.0.1 is paused");
    expect(await attempts.getByTestId("attempts-destination").textContent()).toBe(`To 127.0.0.1 http://127.0.0.1:${flaky.port}/hooks`);

    const toggle = first.getByRole("button", { name: /View response/ });
    expect(await toggle.getAttribute("aria-expanded")).toBe("false");
    await toggle.click();
    expect(await first.getByRole("button", { name: /Hide response/ }).getAttribute("aria-expanded")).toBe("true");
    const response = first.getByTestId("attempt-response");
    await expect.poll(() => response.getByTestId("attempt-header-row").allTextContents()).toContainEqual(expect.stringMatching(/x-sink-state\s*down/i));
    await expect.poll(() => response.getByTestId("attempt-body").textContent()).toContain('"error": "database is down"');
    await shot("retries-event-attempts");
    await phoneShot("retries-event-attempts-phone", attempts);
  });

  it("resumes forwarding: the banner goes and the waiting event is sent", async () => {
    failing = false;
    await page.goto(`${t.rehook.url}/endpoints/${endpoint.id}`);
    await page.getByRole("button", { name: "Resume forwarding" }).click();
    await expect.poll(() => page.getByTestId("forwarding-paused").count()).toBe(0);
    await expect.poll(() => page.getByRole("status").allTextContents()).toContainEqual(expect.stringContaining("Forwarding resumed"));
    await expect
      .poll(async () => (await t.db.query<{ status: string }>("select status from events where id = $1", [events[2]]))[0]?.status, { timeout: 10_000 })
      .toBe("delivered");
  });

  it("retries a waiting event now, from the keyboard", async () => {
    // One failed attempt (fewer than the 2 that pause): the event waits about 4 minutes.
    failing = true;
    const waiting = await capture(endpoint.slug, 5);
    await expect
      .poll(async () => (await t.db.query<{ n: number }>("select count(*)::int as n from delivery_attempts where event_id = $1", [waiting]))[0]?.n, { timeout: 10_000 })
      .toBe(1);
    failing = false;
    await openHydrated(page, `${t.rehook.url}/events/${waiting}`);
    const attempts = page.getByRole("region", { name: /Delivery attempts/ });
    const retry = attempts.getByRole("button", { name: "Retry now" });
    await retry.focus();
    await page.keyboard.press("Enter");
    await expect.poll(() => attempts.getByTestId("attempt-row").count(), { timeout: 10_000 }).toBe(2);
    const second = attempts.getByTestId("attempt-row").nth(1);
    await expect.poll(() => second.getAttribute("data-outcome")).toBe("delivered");
    await expect.poll(() => page.locator(".title-row .badge").textContent()).toBe("Delivered");
    expect(await attempts.getByRole("button", { name: "Retry now" }).count()).toBe(0);
    expect(await attempts.getByTestId("attempt-scheduled").count()).toBe(0);
    await shot("retries-event-delivered");
  });

  it("retries every failed event of an endpoint after a confirmation, and says how many", async () => {
    // No retries and no pausing: a failure is final.
    await page.goto(`${t.rehook.url}/endpoints/${endpoint.id}`);
    const retries = page.getByRole("region", { name: "Retries" });
    await retries.getByRole("radio", { name: /None/ }).check();
    await retries.getByLabel("Pause forwarding after repeated failures").uncheck();
    await retries.getByRole("button", { name: "Save retries" }).click();
    await expect.poll(() => retries.getByRole("status").allTextContents()).toContainEqual(expect.stringContaining("Retries saved"));

    failing = true;
    const failed = await capture(endpoint.slug, 4);
    await expect
      .poll(async () => (await t.db.query<{ status: string }>("select status from events where id = $1", [failed]))[0]?.status, { timeout: 10_000 })
      .toBe("failed");
    failing = false;

    await retries.getByRole("button", { name: "Retry failed events" }).click();
    const dialog = page.getByRole("dialog", { name: "Retry failed events?" });
    await dialog.waitFor();
    await shot("retries-retry-failed-dialog", { fullPage: false });
    await dialog.getByRole("button", { name: "Retry failed events" }).click();
    await expect.poll(() => page.getByTestId("retry-failed-result").textContent()).toContain("1 failed event queued");
    await expect
      .poll(async () => (await t.db.query<{ status: string }>("select status from events where id = $1", [failed]))[0]?.status, { timeout: 10_000 })
      .toBe("delivered");
    await shot("retries-endpoint");
    await phoneShot("retries-endpoint-phone", retries);
  });

  it("logged no console errors", () => {
    expect(consoleErrors).toEqual([]);
  });
});
