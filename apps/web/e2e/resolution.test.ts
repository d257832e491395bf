import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { createDestination } from "@rehook/services";
import type { Sink } from "@rehook/vitest-config/sink";
import type { TestServer } from "../test/test-server.js";
import { captureEvent, createEndpoint, openDashboard, signUp, type Dashboard } from "./fixture.js";

// Replay to a destination and resolution that means something, in a real browser: an endpoint
// forwarding to Billing (answers 200) and Broken (500 until a test mends it). A delivered
// replay to a custom URL resolves nothing, so "Hide resolved" keeps the event; the replay
// dialog's destination picker starts from the failed delivery, and a delivered replay there
// resolves it; a member marks another failure resolved with a note.

let t: TestServer;
let page: Page;
let consoleErrors: string[];
let shot: Dashboard["shot"];
let billing: Sink;
let broken: Sink;
let scratch: Sink;
/** What Broken answers: 500 until a test mends it. */
let brokenStatus = 500;

beforeAll(async () => {
  const dashboard = await openDashboard({
    sinks: {
      billing: (_req, res) => res.end("billing ok"),
      broken: (_req, res) => {
        res.statusCode = brokenStatus;
        res.end(brokenStatus === 200 ? "broken is back" : "broken is down");
      },
      scratch: (_req, res) => res.end("scratch ok"),
    },
  });
  ({ t, page, consoleErrors, shot } = dashboard);
  ({ billing, broken, scratch } = dashboard.sinks);
  return dashboard.close;
});

const settle = { timeout: 15_000 };
const rowIds = () => page.locator('[data-testid="event-row"]').evaluateAll((elements) => elements.map((element) => element.getAttribute("data-event-id")));

/** Captures an order and waits until Billing delivered it and Broken failed it. */
async function failedOrder(slug: string, n: number): Promise<string> {
  const id = await captureEvent(t.rehook.url, slug, JSON.stringify({ type: "order.paid", n }));
  await expect
    .poll(async () => {
      const rows = await t.db.query<{ status: string }>("select d.status from deliveries d where d.event_id = $1 order by d.status", [id]);
      return rows.map((row) => row.status).join(",");
    }, settle)
    .toBe("delivered,failed");
  await expect.poll(async () => (await t.db.query<{ status: string }>("select status from events where id = $1", [id]))[0]?.status, settle).toBe("failed");
  return id;
}

/** The Activity page's failed events with "Hide resolved" on, once the list has loaded. */
async function unresolvedFailed(): Promise<Array<string | null>> {
  await page.goto(`${t.rehook.url}/events?status=failed&unresolved=1`);
  await page.getByRole("heading", { name: "Activity" }).waitFor();
  await page.locator('[data-testid="event-row"], [data-testid="feed-empty"]').or(page.getByRole("heading", { name: /^No / })).first().waitFor();
  return rowIds();
}

async function openReplayDialog(eventId: string) {
  await page.goto(`${t.rehook.url}/events/${eventId}`);
  await page.getByTestId("replay-event").click();
  const dialog = page.getByRole("dialog", { name: "Replay event" });
  await dialog.waitFor();
  return dialog;
}

describe("replay to a destination, and resolution", { timeout: 120_000 }, () => {
  let endpoint = { slug: "", id: "" };
  let brokenId = "";
  let first = "";
  let second = "";

  it("a delivered replay to a custom URL does not resolve the failed event: Hide resolved keeps it", async () => {
    await signUp(page, t.rehook.url, "resolution@example.com");
    endpoint = await createEndpoint(page, "Fanned", `http://127.0.0.1:${billing.port}/billing`);
    const [owned] = await t.db.query<{ team_id: string }>("select team_id from endpoints where id = $1", [endpoint.id]);
    brokenId = (await createDestination(t.rehook.services, { teamId: owned!.team_id, endpointId: endpoint.id, name: "Broken", url: `http://127.0.0.1:${broken.port}/broken` })).id;
    first = await failedOrder(endpoint.slug, 1);

    const dialog = await openReplayDialog(first);
    await dialog.getByRole("radio", { name: "Custom" }).check();
    await dialog.getByLabel("Custom URL").fill(`http://127.0.0.1:${scratch.port}/scratch`);
    await dialog.getByRole("button", { name: "Send replay" }).click();
    await expect.poll(() => dialog.getByTestId("replay-result").getAttribute("data-status"), settle).toBe("delivered");
    expect(scratch.received).toHaveLength(1);
    await dialog.getByRole("button", { name: "Close" }).click();

    expect(await page.getByTestId("resolved").count()).toBe(0);
    expect(await unresolvedFailed()).toEqual([first]);
    await shot("activity-unresolved-after-custom-replay");
  });

  it("the replay dialog picks the failed destination first; a delivered replay there resolves the event, which Hide resolved then hides", async () => {
    brokenStatus = 200;
    const dialog = await openReplayDialog(first);
    expect(await dialog.getByRole("radio", { name: "Original" }).isChecked()).toBe(true);
    const picker = dialog.getByTestId("destination-picker");
    await picker.waitFor();
    expect(await picker.getByRole("checkbox", { name: /^Broken/ }).isChecked()).toBe(true);
    expect(await picker.getByRole("checkbox", { name: /^127\.0\.0\.1/ }).isChecked()).toBe(false);
    await shot("replay-dialog-destination-picker");
    const billingBefore = billing.received.length;
    await dialog.getByRole("button", { name: "Send replay" }).click();
    await expect.poll(() => dialog.getByTestId("replay-result").getAttribute("data-status"), settle).toBe("delivered");
    expect(await dialog.getByTestId("replay-destination-name").textContent()).toBe("Broken");
    await dialog.getByTestId("replay-resolved").waitFor();
    expect(broken.received.at(-1)!.url).toBe("/broken");
    expect(billing.received.length).toBe(billingBefore);
    await dialog.getByRole("button", { name: "Close" }).click();

    // The page read the event again: resolved, by that replay.
    await page.getByTestId("resolved").waitFor(settle);
    const group = page.locator(`[data-testid="delivery"][data-destination-id="${brokenId}"]`);
    expect(await group.getByTestId("delivery-resolution").getAttribute("data-by")).toBe("replay");
    expect(await unresolvedFailed()).toEqual([]);
  });

  it("a member marks a failed delivery resolved with a note", async () => {
    brokenStatus = 500;
    second = await failedOrder(endpoint.slug, 2);
    expect(await unresolvedFailed()).toEqual([second]);
    await page.goto(`${t.rehook.url}/events/${second}`);
    const group = page.locator(`[data-testid="delivery"][data-destination-id="${brokenId}"]`);
    await group.getByRole("button", { name: "Mark resolved" }).click();
    const form = group.getByTestId("resolve-form");
    // A note is required.
    await form.getByRole("button", { name: "Mark resolved" }).click();
    await expect.poll(() => form.getByRole("alert").textContent()).toMatch(/Say what was done/);
    await form.getByLabel("What was done").fill("Billed by hand in the ledger");
    await form.getByRole("button", { name: "Mark resolved" }).click();
    await expect.poll(() => group.getByTestId("resolution-note").textContent(), settle).toBe("Billed by hand in the ledger");
    expect(await group.getByTestId("delivery-resolution").getAttribute("data-by")).toBe("member");
    await page.getByTestId("resolved").waitFor();
    await shot("event-delivery-marked-resolved");
    expect(await unresolvedFailed()).toEqual([]);
    // Without the filter both are listed, flagged, their status still Failed.
    await page.goto(`${t.rehook.url}/events?status=failed`);
    await expect.poll(() => rowIds()).toEqual([second, first]);
    expect(await page.locator('[data-testid="event-row"] [data-testid="resolved"]').count()).toBe(2);
  });

  it("bulk replay sends each failed event to its failed destinations only, and resolves them", async () => {
    const third = await failedOrder(endpoint.slug, 3);
    brokenStatus = 200;
    const [billingBefore, brokenBefore] = [billing.received.length, broken.received.length];
    await page.goto(`${t.rehook.url}/endpoints/${endpoint.id}`);
    const card = page.getByRole("region", { name: "Bulk replay" });
    expect(await card.getByLabel("Target").inputValue()).toBe("failed");
    await card.getByRole("button", { name: "Replay events" }).click();
    // Only the one failure not resolved yet is counted.
    await page.getByRole("dialog", { name: "Replay 1 failed event?" }).getByRole("button", { name: "Replay 1 failed event" }).click();
    await expect.poll(() => card.getByTestId("bulk-summary").textContent(), settle).toContain("1 replayed: 1 delivered, 0 failed");
    expect(broken.received.length - brokenBefore).toBe(1);
    expect(billing.received.length).toBe(billingBefore);
    expect(JSON.parse(broken.received.at(-1)!.body.toString())).toEqual({ type: "order.paid", n: 3 });
    expect(await unresolvedFailed()).toEqual([]);
    await page.goto(`${t.rehook.url}/events/${third}`);
    await page.getByTestId("resolved").waitFor();
    expect(consoleErrors).toEqual([]);
  });
});
