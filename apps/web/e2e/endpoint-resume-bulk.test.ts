import type { IncomingMessage, ServerResponse } from "node:http";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { updateEndpoint } from "@rehook/services";
import type { Sink } from "@rehook/vitest-config/sink";
import type { TestServer } from "../test/test-server.js";
import { captureEvent, createEndpoint, openDashboard, signUp } from "./fixture.js";

// The endpoint page after Resume follows the waiting events' outcomes without a reload, and a
// bulk replay asks first, naming how many events go where.

let t: TestServer;
let destination: Sink;
let page: Page;
let consoleErrors: string[];
/** How the destination answers now: 500, 200, or held until released (an answer that takes a while). */
let mode: "fail" | "ok" | "hold" = "fail";
const held: ServerResponse[] = [];

beforeAll(async () => {
  const dashboard = await openDashboard({
    sinks: {
      destination: (_req: IncomingMessage, res: ServerResponse) => {
        if (mode === "hold") return void held.push(res);
        res.statusCode = mode === "fail" ? 500 : 200;
        res.end(mode);
      },
    },
  });
  ({ t, page, consoleErrors, sinks: { destination } } = dashboard);
  return dashboard.close;
});

const statusOf = async (id: string) => (await t.db.query<{ status: string }>("select status from events where id = $1", [id]))[0]?.status;
let endpointId = "";
let failedId = "";

describe("the endpoint page", { timeout: 120_000 }, () => {
  it("after Resume, shows the waiting event delivered without a reload", async () => {
    await signUp(page, t.rehook.url, "resume@example.com");
    const endpoint = await createEndpoint(page, "Orders", `http://127.0.0.1:${destination.port}/hook`);
    endpointId = endpoint.id;
    // The endpoint belongs to the user's personal team (the one they are in after sign-up).
    const teamId = (await t.db.query<{ team_id: string }>("select team_id from endpoints where id = $1", [endpoint.id]))[0]!.team_id;
    // No retries; the first failure pauses forwarding.
    await updateEndpoint(t.rehook.services, {
      teamId,
      endpoint: { id: endpoint.id },
      changes: { retryPolicy: { maxAttempts: 1, initialDelayMs: 1000, maxDelayMs: 1000 }, pauseAfterFailures: 1 },
    });
    failedId = await captureEvent(t.rehook.url, endpoint.slug, '{"n":1}');
    await expect.poll(() => statusOf(failedId), { timeout: 10_000 }).toBe("failed");
    const waiting = await captureEvent(t.rehook.url, endpoint.slug, '{"n":2}');

    await page.goto(`${t.rehook.url}/endpoints/${endpoint.id}`);
    await page.getByTestId("forwarding-paused").waitFor();
    const header = page.locator(".header-meta");
    expect(await header.textContent()).toContain("0 delivered");
    const recent = page.getByRole("region", { name: "Recent events" });
    const waitingRow = recent.locator(`[href="/events/${waiting}"]`);
    expect(await waitingRow.textContent()).toContain("Pending");

    // The destination takes its time: the page has reloaded for Resume's answer long before.
    mode = "hold";
    await page.getByRole("button", { name: "Resume forwarding" }).click();
    await expect.poll(() => page.getByTestId("forwarding-paused").count()).toBe(0);
    await expect.poll(() => held.length, { timeout: 10_000 }).toBe(1);
    expect(await header.textContent()).toContain("0 delivered");
    mode = "ok";
    held.shift()!.end("ok");
    await expect.poll(() => statusOf(waiting), { timeout: 10_000 }).toBe("delivered");
    // No reload: the outcome arrives on the live feed and the page loads its data again.
    await expect.poll(() => header.textContent(), { timeout: 10_000 }).toContain("1 delivered");
    await expect.poll(() => waitingRow.textContent(), { timeout: 10_000 }).toContain("Delivered");
  });

  it("asks before a bulk replay, naming how many events go where; Cancel sends nothing", async () => {
    const card = page.getByRole("region", { name: "Bulk replay" });
    const sent = destination.received.length;
    await card.getByRole("button", { name: "Replay events" }).click();
    const dialog = page.getByRole("dialog", { name: "Replay 1 failed event?" });
    await dialog.waitFor();
    expect(await dialog.getByTestId("bulk-confirm-text").textContent()).toBe(
      `It is sent again to http://127.0.0.1:${destination.port}/hook with its captured path and query. The server there receives real requests; the events themselves do not change.`,
    );
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "hidden" });
    expect(await card.getByTestId("bulk-progress").count()).toBe(0);
    expect(destination.received.length).toBe(sent);

    // Every event, to a custom URL: the count and the URL are the chosen ones.
    await card.getByLabel("Events", { exact: true }).selectOption("all");
    await card.getByLabel("Target").selectOption("custom");
    await card.getByLabel("Custom URL").fill(`http://127.0.0.1:${destination.port}/elsewhere`);
    await card.getByRole("button", { name: "Replay events" }).click();
    const all = page.getByRole("dialog", { name: "Replay 2 events?" });
    await all.waitFor();
    expect(await all.getByTestId("bulk-confirm-text").textContent()).toContain(`Each is sent again to http://127.0.0.1:${destination.port}/elsewhere.`);
    await all.getByRole("button", { name: "Replay 2 events" }).click();
    await expect.poll(() => card.getByTestId("bulk-summary").textContent(), { timeout: 15_000 }).toContain("2 replayed: 2 delivered, 0 failed");
    expect(destination.received.slice(sent).map((request) => request.url)).toEqual(["/elsewhere", "/elsewhere"]);
    expect(await statusOf(failedId)).toBe("failed");
    expect(consoleErrors).toEqual([]);
  });
});
