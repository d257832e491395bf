import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import type { Sink } from "@rehook/vitest-config/sink";
import type { TestServer } from "../test/test-server.js";
import { captureEvent, createEndpoint, openDashboard, signUp, type Dashboard } from "./fixture.js";

let t: TestServer;
/** The destination: 500 with {"ok":false} on its first call, then 200 with {"ok":true} and an extra header. */
let flip: Sink;
let calls = 0;
let page: Page;
let consoleErrors: string[];
let shot: Dashboard["shot"];

beforeAll(async () => {
  const dashboard = await openDashboard({
    sinks: {
      flip: (_req, res) => {
        calls += 1;
        res.setHeader("content-type", "application/json");
        if (calls === 1) {
          res.statusCode = 500;
          res.end('{"ok":false,"id":7}');
        } else {
          res.setHeader("x-replayed", "yes");
          res.end('{"id":7,"ok":true}');
        }
      },
    },
  });
  ({ t, page, consoleErrors, shot, sinks: { flip } } = dashboard);
  return dashboard.close;
});

const overflow = () => page.evaluate<number>("document.documentElement.scrollWidth - document.documentElement.clientWidth");

describe("compare responses", { timeout: 60_000 }, () => {
  let eventId = "";
  let original = "";

  it("captures an event its destination fails, then replays it successfully", async () => {
    await signUp(page, t.rehook.url, "compare@example.com");
    const endpoint = await createEndpoint(page, "Orders", `http://127.0.0.1:${flip.port}/hooks`);
    eventId = await captureEvent(t.rehook.url, endpoint.slug, JSON.stringify({ type: "order.created", id: 7 }));
    await expect.poll(() => flip.received.length, { timeout: 10_000 }).toBe(1);

    await expect
      .poll(
        async () => {
          await page.goto(`${t.rehook.url}/events/${eventId}`);
          return page.getByTestId("attempt-row").count();
        },
        { timeout: 10_000, interval: 300 },
      )
      .toBe(1);
    // One response only: nothing to compare yet.
    expect(await page.getByRole("link", { name: "Compare responses" }).count()).toBe(0);

    await page.getByRole("button", { name: "Replay", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Replay event" });
    await dialog.getByRole("button", { name: "Send replay" }).click();
    await dialog.getByTestId("replay-result").waitFor();
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    expect(flip.received).toHaveLength(2);
  });

  it("shows the original against the replay: the changed status, the added header and the changed body line", async () => {
    await page.getByRole("link", { name: "Compare responses" }).click();
    await page.waitForURL(`${t.rehook.url}/events/${eventId}/compare`);
    await page.getByRole("heading", { name: "Compare responses", level: 1 }).waitFor();

    // The original delivery by its destination and number (each destination numbers its attempts from 1).
    original = await page.getByLabel("Left response", { exact: true }).inputValue();
    expect(original).toMatch(/^delivery:[0-9a-f-]{36}:1$/);
    expect(await page.getByLabel("Right response", { exact: true }).inputValue()).toMatch(/^replay:/);
    expect(await page.getByTestId("compare-left-status").textContent()).toContain("500");
    expect(await page.getByTestId("compare-right-status").textContent()).toContain("200");
    expect(await page.getByTestId("compare-left").textContent()).toContain("changed");

    const added = page.locator('[data-testid="header-diff-row"][data-kind="added"]');
    expect(await added.allTextContents()).toEqual([expect.stringContaining("x-replayed")]);
    expect(await added.textContent()).toContain("yes");
    expect(await page.locator('[data-testid="header-diff-row"][data-kind="same"]').allTextContents()).toContainEqual(expect.stringContaining("application/json"));

    // JSON normalised first: the key order differs but only the "ok" line changed.
    const changed = page.locator('[data-testid="body-diff-line"]:not([data-kind="same"])');
    expect(await changed.evaluateAll((rows) => rows.map((row) => `${row.getAttribute("data-kind")} ${row.querySelector(".line-text")?.textContent}`))).toEqual([
      'removed   "ok": false',
      'added   "ok": true',
    ]);
    expect(await page.locator('[data-testid="body-diff-line"][data-kind="same"]').count()).toBe(3);
    await shot("compare-light");

    await page.emulateMedia({ colorScheme: "dark" });
    await shot("compare-dark");
    await page.setViewportSize({ width: 375, height: 812 });
    await expect.poll(overflow).toBe(0);
    await shot("compare-phone");
    await page.emulateMedia({ colorScheme: "light" });
    await page.setViewportSize({ width: 1280, height: 860 });
  });

  it("swaps sides with the pickers, and the replay page links to the comparison with the original", async () => {
    const right = await page.getByLabel("Right response", { exact: true }).inputValue();
    await page.getByLabel("Left response", { exact: true }).selectOption(right);
    await page.getByLabel("Right response", { exact: true }).selectOption(original);
    await page.getByRole("button", { name: "Compare", exact: true }).click();
    await page.waitForURL(/left=replay/);
    await expect.poll(() => page.getByTestId("compare-left-status").textContent()).toContain("200");
    expect(await page.locator('[data-testid="header-diff-row"][data-kind="removed"]').allTextContents()).toEqual([expect.stringContaining("x-replayed")]);

    const replayId = right.slice("replay:".length);
    await page.goto(`${t.rehook.url}/replays/${replayId}`);
    await page.getByRole("link", { name: "Compare with the original" }).click();
    await page.waitForURL(`${t.rehook.url}/events/${eventId}/compare?left=${original}&right=replay:${replayId}`);
    await expect.poll(() => page.getByTestId("compare-right-status").textContent()).toContain("200");

    // A reference to nothing says so and keeps the pickers.
    await page.goto(`${t.rehook.url}/events/${eventId}/compare?left=delivery:9&right=delivery:1`);
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("has no attempt 9");
    expect(consoleErrors).toEqual([]);
  });
});
