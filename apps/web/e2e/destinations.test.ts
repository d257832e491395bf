import type { Locator, Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import type { Sink } from "@rehook/vitest-config/sink";
import type { TestServer } from "../test/test-server.js";
import { captureEvent, createEndpoint, openDashboard, signUp, type Dashboard } from "./fixture.js";

// Routing in a real browser: two destinations added on the endpoint page (one with a filter
// and a breaker), events captured to the endpoint fanned out to them, each destination's state
// in the feed and on the event page, "Test this filter" both ways, an invalid filter refused
// inline, Resume and Remove. Destination names are shown as text, never as markup.

let t: TestServer;
let page: Page;
let consoleErrors: string[];
let shot: Dashboard["shot"];
/** Answers 200. */
let main: Sink;
/** Answers 500: its deliveries fail (no retries), which pauses it after one. */
let billing: Sink;

beforeAll(async () => {
  const dashboard = await openDashboard({
    sinks: {
      main: (_req, res) => res.end("ok"),
      billing: (_req, res) => {
        res.statusCode = 500;
        res.end("billing is down");
      },
    },
    env: () => ({ FORWARD_TIMEOUT_MS: "2000" }),
  });
  ({ t, page, consoleErrors, shot } = dashboard);
  ({ main, billing } = dashboard.sinks);
  return dashboard.close;
});

/** A name with markup in it: it must show as these characters. */
const BILLING = "Billing <b>EU</b>";

/** Polls after a form is sent: the action and the page's reload take their time on a busy machine. */
const settle = { timeout: 10_000 };

/** How far the page scrolls sideways (0: nothing sticks out of the screen). */
const overflow = () => page.evaluate<number>("document.documentElement.scrollWidth - document.documentElement.clientWidth");

const status = async (id: string) => (await t.db.query<{ status: string }>("select status from events where id = $1", [id]))[0]?.status;
const section = () => page.getByRole("region", { name: /^Destinations/ });
const destination = (name: string) => section().getByTestId("destination").filter({ has: page.getByTestId("destination-name").getByText(name, { exact: true }) });

/** Opens the Add destination form and fills it (the filter as typed). */
async function fillNewDestination(fields: { url: string; name: string; filter?: string }): Promise<Locator> {
  const add = section().getByRole("button", { name: "Add destination" });
  if (await add.isVisible()) await add.click();
  const form = section().getByTestId("destination-add");
  await form.waitFor();
  await form.getByLabel("URL", { exact: true }).fill(fields.url);
  await form.getByLabel(/^Name/).fill(fields.name);
  await form.getByLabel(/^Filter/).fill(fields.filter ?? "");
  return form;
}

describe("destinations on the dashboard", { timeout: 120_000 }, () => {
  let endpoint = { slug: "", id: "" };
  const events = { invoice: "", order: "" };

  it("adds two destinations, one with a filter and pausing; a filter that is not JSON, and one the server refuses, are shown inline", async () => {
    await signUp(page, t.rehook.url, "routing@example.com");
    endpoint = await createEndpoint(page, "Routed");
    await page.goto(`${t.rehook.url}/endpoints/${endpoint.id}`);
    await section().getByTestId("no-destinations").waitFor();

    // The first: every event.
    let form = await fillNewDestination({ url: `http://127.0.0.1:${main.port}/in`, name: "Main" });
    await form.getByRole("button", { name: "Add destination" }).click();
    await expect.poll(() => section().getByTestId("destination").count(), settle).toBe(1);
    expect(await destination("Main").getByTestId("destination-filter").textContent()).toBe("All events");
    expect(await destination("Main").getByTestId("destination-state").textContent()).toBe("Enabled");

    // Not JSON: the form says so and keeps what was typed.
    form = await fillNewDestination({ url: `http://127.0.0.1:${billing.port}/billing`, name: BILLING, filter: '{"body.type": ' });
    await form.getByRole("button", { name: "Add destination" }).click();
    await expect.poll(() => form.getByRole("alert").textContent(), settle).toMatch(/The filter is not valid JSON/);
    expect(await form.getByLabel(/^Filter/).inputValue()).toBe('{"body.type": ');

    // JSON the filter language refuses: the server's message, naming the operator.
    await form.getByLabel(/^Filter/).fill('{"body.type": {"$regex": "^invoice"}}');
    await form.getByRole("button", { name: "Add destination" }).click();
    await expect.poll(() => form.getByRole("alert").textContent(), settle).toMatch(/\$regex/);
    expect(await section().getByTestId("destination").count()).toBe(1);
    await shot("destinations-invalid-filter");

    // Fixed, with its breaker: pause after one failed attempt.
    await form.getByLabel(/^Filter/).fill('{"body.type": "invoice.paid"}');
    await form.locator("summary").click();
    await form.getByLabel("Pause forwarding after repeated failures").check();
    await form.getByLabel("Consecutive failed attempts").fill("1");
    await form.getByRole("button", { name: "Add destination" }).click();
    await expect.poll(() => section().getByTestId("destination").count(), settle).toBe(2);
    expect(await section().getByTestId("destination-name").allTextContents()).toEqual(["Main", BILLING]);
    // Text, not markup.
    expect(await section().locator("[data-testid=destination-name] b").count()).toBe(0);
    expect(await destination(BILLING).getByTestId("destination-filter").textContent()).toBe('{"body.type":"invoice.paid"}');
    expect(await destination(BILLING).getByTestId("destination-url").textContent()).toBe(`http://127.0.0.1:${billing.port}/billing`);
    expect(await destination(BILLING).textContent()).toContain("Pauses after 1 failed attempt in a row");

    // The single-destination settings edit the first, and say so.
    expect(await page.getByRole("region", { name: "Settings" }).getByLabel("Destination URL").inputValue()).toBe(`http://127.0.0.1:${main.port}/in`);
    expect(await page.getByRole("region", { name: "Settings" }).getByTestId("first-destination-note").textContent()).toMatch(/first of the endpoint’s 2 destinations/);
    expect(await page.getByRole("region", { name: "Retries" }).getByTestId("first-destination-note").textContent()).toMatch(/first destination’s \(of 2\)/);
    await shot("destinations-list");
  });

  it("fans events out: each destination's state in the feed, the one it was filtered away from included", async () => {
    events.invoice = await captureEvent(t.rehook.url, endpoint.slug, JSON.stringify({ type: "invoice.paid", id: 1 }));
    events.order = await captureEvent(t.rehook.url, endpoint.slug, JSON.stringify({ type: "order.created", id: 2 }));
    await expect.poll(() => status(events.invoice), { timeout: 10_000 }).toBe("failed");
    await expect.poll(() => status(events.order), { timeout: 10_000 }).toBe("delivered");
    expect(main.received).toHaveLength(2);
    expect(billing.received).toHaveLength(1);

    await page.goto(`${t.rehook.url}/events?endpointId=${endpoint.id}`);
    const invoiceRow = page.locator(`[data-testid=event-row][data-event-id="${events.invoice}"]`);
    const dots = invoiceRow.getByTestId("delivery-dots");
    await dots.waitFor();
    expect(await dots.getByTestId("delivery-summary").textContent()).toBe("1/2 delivered");
    const states = await dots
      .getByTestId("delivery-dot")
      .evaluateAll((elements) => elements.map((element) => [element.getAttribute("data-destination"), element.getAttribute("data-delivery-status"), element.getAttribute("title")]));
    expect(states).toEqual([
      ["Main", "delivered", "Main: Delivered"],
      [BILLING, "failed", `${BILLING}: Failed`],
    ]);
    expect(await dots.getAttribute("aria-label")).toBe(`1/2 delivered: Main: Delivered; ${BILLING}: Failed`);
    // Filtered away from Billing: delivered to Main, and Billing's dot says filtered.
    const orderRow = page.locator(`[data-testid=event-row][data-event-id="${events.order}"]`);
    expect(await orderRow.getAttribute("data-status")).toBe("delivered");
    expect(await orderRow.getByTestId("delivery-summary").textContent()).toBe("1/1 delivered");
    expect(await orderRow.getByTestId("delivery-dot").evaluateAll((elements) => elements.map((element) => element.getAttribute("title")))).toEqual([
      "Main: Delivered",
      `${BILLING}: Filtered out`,
    ]);
    await shot("destinations-feed");

    // The endpoint page's recent events too.
    await page.goto(`${t.rehook.url}/endpoints/${endpoint.id}`);
    await expect.poll(() => page.locator(".mini-feed").getByTestId("delivery-summary").allTextContents(), settle).toEqual(["1/1 delivered", "1/2 delivered"]);
  });

  it("pauses the failing destination on its own and resumes it", async () => {
    const billingItem = destination(BILLING);
    await expect.poll(() => billingItem.getAttribute("data-state"), settle).toBe("paused");
    expect(await billingItem.getByTestId("destination-state").textContent()).toBe("Paused");
    expect(await billingItem.getByTestId("destination-paused").textContent()).toMatch(/^Paused since/);
    expect(await destination("Main").getAttribute("data-state")).toBe("enabled");
    // The endpoint's banner names the destination.
    expect(await page.getByTestId("paused-reason").textContent()).toContain(BILLING);
    await shot("destinations-paused");

    await billingItem.getByRole("button", { name: "Resume" }).click();
    await expect.poll(() => billingItem.getAttribute("data-state"), settle).toBe("enabled");
    expect(await page.getByTestId("forwarding-paused").count()).toBe(0);
  });

  it("shows each destination's delivery on the event page, Filtered out included", async () => {
    await page.goto(`${t.rehook.url}/events/${events.invoice}`);
    const card = page.getByRole("region", { name: /^Deliveries/ });
    await card.waitFor();
    const deliveries = card.getByTestId("delivery");
    expect(await deliveries.count()).toBe(2);
    expect(await deliveries.nth(0).getByTestId("delivery-name").textContent()).toBe("Main");
    expect(await deliveries.nth(0).getByTestId("delivery-state").textContent()).toBe("Delivered");
    expect(await deliveries.nth(0).getByTestId("delivery-attempts").textContent()).toBe("1 attempt");
    expect(await deliveries.nth(0).getByTestId("attempt-row").getAttribute("data-outcome")).toBe("delivered");
    expect(await deliveries.nth(1).getByTestId("delivery-name").textContent()).toBe(BILLING);
    expect(await deliveries.nth(1).getByTestId("delivery-state").textContent()).toBe("Failed");
    expect(await deliveries.nth(1).getByTestId("delivery-url").textContent()).toBe(`http://127.0.0.1:${billing.port}/billing`);
    const failed = deliveries.nth(1).getByTestId("attempt-row");
    expect(await failed.getAttribute("data-outcome")).toBe("failed");
    expect(await failed.textContent()).toContain("500");
    await shot("destinations-event-failed");

    await page.goto(`${t.rehook.url}/events/${events.order}`);
    const filtered = page.getByRole("region", { name: /^Deliveries/ }).getByTestId("delivery");
    await expect.poll(() => filtered.count(), settle).toBe(2);
    expect(await filtered.nth(0).getByTestId("delivery-state").textContent()).toBe("Delivered");
    expect(await filtered.nth(1).getAttribute("data-status")).toBe("filtered");
    expect(await filtered.nth(1).getByTestId("delivery-state").textContent()).toBe("Filtered out");
    expect(await filtered.nth(1).getByTestId("delivery-filtered").textContent()).toContain("filter did not match");
    expect(await filtered.nth(1).getByTestId("attempt-row").count()).toBe(0);
    await shot("destinations-event-filtered");
  });

  it("tests a filter against recent events: matches, does not match, and an invalid filter's error", async () => {
    await page.goto(`${t.rehook.url}/endpoints/${endpoint.id}`);
    await destination(BILLING).getByRole("button", { name: /^Edit/ }).click();
    const edit = destination(BILLING).getByTestId("destination-edit");
    const tester = edit.getByTestId("filter-tester");
    const outcome = tester.getByTestId("filter-test-outcome");
    const pick = tester.getByLabel("Test this filter");
    await expect.poll(() => pick.locator("option").count(), settle).toBe(2);
    expect(await pick.locator("option").allTextContents()).toEqual([expect.stringMatching(/^POST \/ · .+ · /), expect.stringMatching(/^POST \/ · .+ · /)]);

    await pick.selectOption(events.invoice);
    await tester.getByRole("button", { name: "Test filter" }).click();
    await expect.poll(() => outcome.textContent(), settle).toBe("Matches");
    await pick.selectOption(events.order);
    // A new choice makes the old answer stale.
    await expect.poll(() => outcome.textContent(), settle).toBe("");
    await tester.getByRole("button", { name: "Test filter" }).click();
    await expect.poll(() => outcome.textContent(), settle).toBe("Does not match");
    await shot("destinations-filter-test");
    // On a phone, the list and the open form fit the screen.
    await page.setViewportSize({ width: 375, height: 812 });
    await expect.poll(overflow, settle).toBe(0);
    await shot("destinations-phone");
    await page.setViewportSize({ width: 1280, height: 860 });

    // The filter being edited is what is tested: widened, it matches the order too.
    await edit.getByLabel(/^Filter/).fill('{"body.type": {"$in": ["invoice.paid", "order.created"]}}');
    await tester.getByRole("button", { name: "Test filter" }).click();
    await expect.poll(() => outcome.textContent(), settle).toBe("Matches");

    await edit.getByLabel(/^Filter/).fill('{"body.type": {"$regex": "order"}}');
    await tester.getByRole("button", { name: "Test filter" }).click();
    await expect.poll(() => tester.getByTestId("filter-test-error").textContent(), settle).toMatch(/\$regex/);
    await edit.getByLabel(/^Filter/).fill("{nope");
    await tester.getByRole("button", { name: "Test filter" }).click();
    await expect.poll(() => tester.getByTestId("filter-test-error").textContent(), settle).toMatch(/The filter is not valid JSON/);

    // Saving the widened filter.
    await edit.getByLabel(/^Filter/).fill('{"body.type": {"$in": ["invoice.paid", "order.created"]}}');
    await edit.getByRole("button", { name: "Save destination" }).click();
    await expect.poll(() => destination(BILLING).getByTestId("destination-filter").textContent(), settle).toBe('{"body.type":{"$in":["invoice.paid","order.created"]}}');
    expect(await destination(BILLING).getByTestId("destination-edit").count()).toBe(0);
  });

  it("disables and enables a destination", async () => {
    const item = destination("Main");
    await item.getByRole("button", { name: /^Disable/ }).click();
    await expect.poll(() => item.getAttribute("data-state"), settle).toBe("disabled");
    expect(await item.getByTestId("destination-state").textContent()).toBe("Disabled");
    await item.getByRole("button", { name: /^Enable/ }).click();
    await expect.poll(() => item.getAttribute("data-state"), settle).toBe("enabled");
  });

  it("removes a destination after a confirmation that says its pending deliveries are cancelled", async () => {
    await destination(BILLING).getByRole("button", { name: /^Remove/ }).click();
    const dialog = page.getByRole("dialog", { name: "Remove this destination?" });
    await dialog.waitFor();
    const text = (await dialog.textContent()) ?? "";
    expect(text).toContain(`“${BILLING}”`);
    expect(text).toContain("pending deliveries are cancelled");
    await shot("destinations-remove-dialog", { fullPage: false });
    await dialog.getByRole("button", { name: "Remove destination" }).click();
    await expect.poll(() => section().getByTestId("destination").count(), settle).toBe(1);
    expect(await section().getByTestId("destination-name").allTextContents()).toEqual(["Main"]);
    await expect.poll(() => section().getByRole("status").allTextContents(), settle).toContainEqual(expect.stringContaining("pending deliveries were cancelled"));
    expect(await page.getByTestId("first-destination-note").count()).toBe(0);
    const stored = await t.db.query<{ n: number }>("select count(*)::int as n from destinations where endpoint_id = $1", [endpoint.id]);
    expect(stored).toEqual([{ n: 1 }]);
  });

  it("logged no errors in the browser console", () => {
    expect(consoleErrors).toEqual([]);
  });
});
