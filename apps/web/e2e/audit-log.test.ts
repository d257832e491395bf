import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../test/test-server.js";
import { createEndpoint, openDashboard, signUp, type Dashboard } from "./fixture.js";

// Settings → Audit log in a real browser: the changes the user just made, newest first, with
// who and from where; filters; the NDJSON export; and a hostile endpoint name shown as text.

let t: TestServer;
let page: Page;
let consoleErrors: string[];
let shot: Dashboard["shot"];

beforeAll(async () => {
  const dashboard = await openDashboard();
  ({ t, page, consoleErrors, shot } = dashboard);
  return dashboard.close;
});
afterAll(() => expect(consoleErrors).toEqual([]));

const HOSTILE = `<img src=x onerror="window.__pwned=1">Billing`;

describe("the audit log page", () => {
  it("lists the user's own changes, newest first, with who made them and from where", async () => {
    await signUp(page, t.rehook.url, "audit-e2e@example.com");
    const endpoint = await createEndpoint(page, HOSTILE);
    await page.goto(`${t.rehook.url}/settings`);
    await page.getByRole("link", { name: "Audit log" }).click();
    await page.getByRole("heading", { name: "Audit log", level: 1 }).waitFor();
    const rows = page.getByTestId("audit-row");
    await expect.poll(() => rows.count()).toBeGreaterThan(0);
    const newest = rows.first();
    expect(await newest.getByRole("cell").nth(2).textContent()).toBe("endpoint.create");
    expect(await newest.textContent()).toContain("audit-e2e@example.com");
    // The endpoint's name is shown as the text it is: no element made of it, nothing run.
    expect(await newest.textContent()).toContain(HOSTILE);
    expect(await page.locator("img[src=x]").count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
    // The sign-up's sign-in is there too, with the browser's address.
    expect(await rows.filter({ hasText: "user.sign_in" }).count()).toBe(1);
    expect(await rows.filter({ hasText: "user.sign_in" }).textContent()).toContain("127.0.0.1");
    await shot("audit-log");

    // Filtering by action keeps only the endpoint's entry.
    await page.getByLabel("Action").selectOption("endpoint.");
    await page.getByRole("button", { name: "Filter" }).click();
    await page.waitForURL(/action=endpoint\./);
    await expect.poll(() => rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain("endpoint.create");

    // The export link downloads the same entries as NDJSON.
    const download = await page.request.get(`${t.rehook.url}/settings/audit-log/export?action=endpoint.`);
    expect(download.headers()["content-type"]).toContain("application/x-ndjson");
    const lines = (await download.text()).trim().split("\n").map((line) => JSON.parse(line) as { action: string; target: { id: string; name: string } });
    expect(lines).toEqual([expect.objectContaining({ action: "endpoint.create", target: expect.objectContaining({ id: endpoint.id, name: HOSTILE }) })]);

    // The target's name narrows the log to that endpoint's entries; the actor's, to the user's.
    await rows.first().getByTestId("audit-target_id").click();
    await page.waitForURL(new RegExp(`target_id=${endpoint.id}`));
    await expect.poll(() => rows.count()).toBe(1);
    await rows.first().getByTestId("audit-actor_id").click();
    await page.waitForURL(/actor_id=/);
    await expect.poll(() => rows.filter({ hasText: "user.sign_in" }).count()).toBe(1);
    // The account's own making is in its personal team's log, by the user, from the browser's address.
    expect(await rows.filter({ hasText: "user.create" }).textContent()).toContain("127.0.0.1");
  });
});
