import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { createDestination } from "@rehook/services";
import type { Sink } from "@rehook/vitest-config/sink";
import type { TestServer } from "../test/test-server.js";
import { captureEvent, createEndpoint, openDashboard, signUp, type Dashboard } from "./fixture.js";

// History that names each destination, and Activity that tells the truth, in a real browser:
// an endpoint fanning out to its first destination (named after its host, answers 200) and Ledger (answers 500, pauses after one
// failure). Compare responses picks each destination's attempt and labels it with its own URL;
// the event page names every destination it went to; an event held by the paused Ledger reads
// Paused in Activity and names Ledger; with two endpoints, Activity shows which one each row is.

let t: TestServer;
let page: Page;
let consoleErrors: string[];
let shot: Dashboard["shot"];
let main: Sink;
let ledger: Sink;

beforeAll(async () => {
  const dashboard = await openDashboard({
    sinks: {
      main: (_req, res) => {
        res.setHeader("content-type", "application/json");
        res.end('{"who":"main"}');
      },
      ledger: (_req, res) => {
        res.statusCode = 500;
        res.setHeader("content-type", "application/json");
        res.end('{"who":"ledger"}');
      },
    },
  });
  ({ t, page, consoleErrors, shot } = dashboard);
  ({ main, ledger } = dashboard.sinks);
  return dashboard.close;
});

const settle = { timeout: 10_000 };
const row = (id: string) => page.locator(`[data-testid="event-row"][data-event-id="${id}"]`);
const deliveryStatus = async (eventId: string, url: string) =>
  (await t.db.query<{ status: string }>("select d.status from deliveries d join destinations t on t.id = d.destination_id where d.event_id = $1 and t.url = $2", [eventId, url]))[0]?.status;

describe("delivery history and activity", { timeout: 120_000 }, () => {
  let endpoint = { slug: "", id: "" };
  let mainUrl = "";
  let ledgerUrl = "";
  /** Went to both: Main delivered, Ledger failed (and paused). */
  let tripped = "";
  /** Came after the pause: Main delivered, Ledger holds it. */
  let held = "";

  it("fans an event out to two destinations; the failure pauses Ledger and holds the next event", async () => {
    await signUp(page, t.rehook.url, "history@example.com");
    mainUrl = `http://127.0.0.1:${main.port}/main`;
    ledgerUrl = `http://127.0.0.1:${ledger.port}/ledger`;
    endpoint = await createEndpoint(page, "Shop", mainUrl);
    const teamId = (await t.db.query<{ team_id: string }>("select team_id from endpoints where id = $1", [endpoint.id]))[0]!.team_id;
    await createDestination(t.rehook.services, { teamId, endpointId: endpoint.id, name: "Ledger", url: ledgerUrl, pauseAfterFailures: 1 });

    tripped = await captureEvent(t.rehook.url, endpoint.slug, '{"type":"invoice.paid"}');
    await expect.poll(() => deliveryStatus(tripped, ledgerUrl), settle).toBe("failed");
    await expect.poll(async () => (await t.db.query("select 1 from destinations where url = $1 and forwarding_paused_at is not null", [ledgerUrl])).length, settle).toBe(1);
    held = await captureEvent(t.rehook.url, endpoint.slug, '{"type":"invoice.sent"}');
    await expect.poll(() => deliveryStatus(held, mainUrl), settle).toBe("delivered");
    expect(await deliveryStatus(held, ledgerUrl)).toBe("pending");
  });

  it("compare responses can pick each destination's attempt, each labelled with its own destination and URL", async () => {
    await page.goto(`${t.rehook.url}/events/${tripped}/compare`);
    await page.getByRole("heading", { name: "Compare responses", level: 1 }).waitFor();
    const left = page.getByLabel("Left response", { exact: true });
    const options = await left.locator("option").evaluateAll((elements) => elements.map((element) => [element.getAttribute("value") ?? "", element.textContent ?? ""]));
    const attempts = options.filter(([value]) => value!.startsWith("delivery:"));
    // One option per attempt, each with its own value: both can be chosen.
    expect(attempts).toHaveLength(2);
    expect(new Set(attempts.map(([value]) => value)).size).toBe(2);
    const mainOption = attempts.find(([, text]) => text!.includes(" · 127.0.0.1 · "))!;
    const ledgerOption = attempts.find(([, text]) => text!.includes(" · Ledger · "))!;
    expect(mainOption[1]).toMatch(new RegExp(`^Original delivery · 127\\.0\\.0\\.1 · .* · 200 · ${mainUrl}$`));
    expect(ledgerOption[1]).toMatch(new RegExp(`^Original delivery · Ledger · .* · 500 · ${ledgerUrl}$`));

    await left.selectOption(mainOption[0]!);
    await page.getByLabel("Right response", { exact: true }).selectOption(ledgerOption[0]!);
    await page.getByRole("button", { name: "Compare", exact: true }).click();
    await page.waitForURL(/left=delivery/);
    await expect.poll(() => page.getByTestId("compare-left-destination-label").textContent(), settle).toBe("127.0.0.1");
    expect(await page.getByTestId("compare-left-destination").textContent()).toBe(mainUrl);
    expect(await page.getByTestId("compare-left-status").textContent()).toContain("200");
    expect(await page.getByTestId("compare-right-destination-label").textContent()).toBe("Ledger");
    expect(await page.getByTestId("compare-right-destination").textContent()).toBe(ledgerUrl);
    expect(await page.getByTestId("compare-right-status").textContent()).toContain("500");
    // The pickers keep what was chosen: each attempt is selectable, and selected.
    expect(await left.inputValue()).toBe(mainOption[0]);
    expect(await page.getByLabel("Right response", { exact: true }).inputValue()).toBe(ledgerOption[0]);
    const changed = page.locator('[data-testid="body-diff-line"]:not([data-kind="same"])');
    expect(await changed.evaluateAll((lines) => lines.map((line) => line.querySelector(".line-text")?.textContent))).toEqual(['  "who": "main"', '  "who": "ledger"']);
    await shot("history-compare-destinations");
  });

  it("the event page names every destination it was forwarded to, with each one's attempts", async () => {
    await page.goto(`${t.rehook.url}/events/${tripped}`);
    const forwarded = page.getByTestId("forwarded-destination");
    await expect.poll(() => forwarded.count(), settle).toBe(2);
    expect(await forwarded.nth(0).getByTestId("forwarded-name").textContent()).toBe("127.0.0.1");
    expect(await forwarded.nth(0).getByTestId("destination-url").textContent()).toBe(mainUrl);
    expect(await forwarded.nth(1).getByTestId("forwarded-name").textContent()).toBe("Ledger");
    expect(await forwarded.nth(1).getByTestId("destination-url").textContent()).toBe(ledgerUrl);
    const deliveries = page.getByRole("region", { name: /^Deliveries/ }).getByTestId("delivery");
    expect(await deliveries.count()).toBe(2);
    expect(await deliveries.nth(1).getByTestId("delivery-state").textContent()).toBe("Failed");
    // Each destination's attempt opens its own response (both are "attempt 1").
    const ledgerAttempt = deliveries.nth(1).getByTestId("attempt-row");
    await ledgerAttempt.getByRole("button", { name: /View response/ }).click();
    await expect.poll(() => ledgerAttempt.getByTestId("attempt-body").textContent(), settle).toContain('"who": "ledger"');
    // Several destinations: no one "response" stands for the event.
    await page.getByRole("tab", { name: /Response/ }).click();
    await expect.poll(() => page.getByText("Sent to 2 destinations", { exact: true }).count(), settle).toBe(1);
    await shot("history-event-destinations");
  });

  it("an event held by the paused destination reads Paused in Activity, naming Ledger, and its page says to resume Ledger", async () => {
    await page.goto(`${t.rehook.url}/events`);
    const heldRow = row(held);
    await heldRow.waitFor();
    await expect.poll(() => heldRow.getByTestId("event-paused").textContent(), settle).toBe("Paused");
    expect(await heldRow.getByTestId("paused-destinations").textContent()).toBe("Ledger");
    expect(await heldRow.getByTestId("row-paused").textContent()).toBe("Paused at Ledger · resume");
    expect(await heldRow.getByTestId("row-paused").getByRole("link", { name: "resume" }).getAttribute("href")).toBe(`/endpoints/${endpoint.id}#destinations`);
    expect(await heldRow.getByTestId("row-retrying").count()).toBe(0);
    expect(await heldRow.textContent()).not.toContain("retrying");
    const dots = await heldRow
      .getByTestId("delivery-dot")
      .evaluateAll((elements) => elements.map((element) => [element.getAttribute("data-destination"), element.getAttribute("data-delivery-status")]));
    expect(dots).toEqual([
      ["127.0.0.1", "delivered"],
      ["Ledger", "paused"],
    ]);
    await shot("history-activity-paused");

    await page.goto(`${t.rehook.url}/events/${held}`);
    await expect.poll(() => page.getByTestId("paused-header").textContent(), settle).toBe("Paused: sent once Ledger is resumed");
    const ledgerDelivery = page.getByRole("region", { name: /^Deliveries/ }).getByTestId("delivery").nth(1);
    expect(await ledgerDelivery.getByTestId("delivery-state").textContent()).toBe("Paused");

    // The replay dialog's picker says the same: Ledger's delivery waits for a resume.
    await page.getByTestId("replay-event").click();
    const dialog = page.getByRole("dialog", { name: "Replay event" });
    const picker = dialog.getByTestId("destination-picker");
    await picker.waitFor();
    const states = await picker
      .getByTestId("destination-delivery")
      .evaluateAll((elements) => elements.map((element) => element.textContent));
    expect(states).toEqual(["delivered", "paused"]);
    await dialog.getByRole("button", { name: "Close" }).click();
    await dialog.waitFor({ state: "hidden" });
  });

  it("with several endpoints, each Activity row shows its endpoint, side by side with the preview too", async () => {
    const other = await createEndpoint(page, "Billing API", mainUrl);
    const otherEvent = await captureEvent(t.rehook.url, other.slug, "{}");
    await page.goto(`${t.rehook.url}/events`);
    await row(otherEvent).waitFor();
    // 1280 px wide: the split view, which used to drop the endpoint column.
    await page.getByTestId("event-preview").waitFor();
    expect(await page.getByRole("columnheader", { name: "Endpoint" }).isVisible()).toBe(true);
    const endpointOf = (id: string) => row(id).locator("td.cell-endpoint");
    expect(await endpointOf(otherEvent).isVisible()).toBe(true);
    expect(await endpointOf(otherEvent).textContent()).toBe("Billing API");
    expect(await endpointOf(held).textContent()).toBe("Shop");
    await shot("history-activity-endpoints");
    expect(consoleErrors).toEqual([]);
  });
});
