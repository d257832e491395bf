import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import type { Sink } from "@rehook/vitest-config/sink";
import type { TestServer } from "../test/test-server.js";
import { captureEvent, createEndpoint, openDashboard, signUp, type Dashboard } from "./fixture.js";

// Deduplication in a real browser: the rule set on the endpoint page, a GitHub delivery sent
// twice to the capture URL, the repeat found with the Activity page's Duplicate status and
// shown on its page as a duplicate of the first, which alone reached the destination.

let t: TestServer;
let page: Page;
let consoleErrors: string[];
let shot: Dashboard["shot"];
let destination: Sink;

beforeAll(async () => {
  const dashboard = await openDashboard({ sinks: { destination: (_req, res) => res.end("thanks") } });
  ({ t, page, consoleErrors, shot } = dashboard);
  destination = dashboard.sinks.destination;
  return dashboard.close;
});

const rowIds = (target: Page) => target.locator('[data-testid="event-row"]').evaluateAll((elements) => elements.map((element) => element.getAttribute("data-event-id")));

describe("deduplication on the dashboard", () => {
  let endpoint = { slug: "", id: "" };
  const ids = { first: "", repeat: "" };
  const delivery = (id: string): Array<[string, string]> => [
    ["Content-Type", "application/json"],
    ["X-GitHub-Event", "push"],
    ["X-GitHub-Delivery", id],
  ];

  it("starts off, refuses a header rule without its header, then saves one on the provider's delivery id for a day", async () => {
    await signUp(page, t.rehook.url, "dedup@example.com");
    endpoint = await createEndpoint(page, "Deduped", `http://127.0.0.1:${destination.port}/in`);
    await page.goto(`${t.rehook.url}/endpoints/${endpoint.id}`);
    const form = page.getByTestId("dedup-form");
    expect(await form.getByTestId("dedup-current").textContent()).toMatch(/^Off/);
    expect(await form.getByRole("radio", { name: /Off/ }).isChecked()).toBe(true);

    await form.getByRole("radio", { name: /Skip repeats/ }).check();
    // Provider delivery id and a day until changed.
    expect(await form.getByLabel("Same when they share").inputValue()).toBe("auto");
    expect(await form.getByLabel("Window", { exact: true }).inputValue()).toBe("24");
    expect(await form.getByLabel("Unit").inputValue()).toBe("h");

    await form.getByLabel("Same when they share").selectOption("header");
    await form.getByRole("button", { name: "Save deduplication" }).click();
    await expect.poll(() => form.getByRole("alert").textContent()).toMatch(/Name the header/);

    await form.getByLabel("Same when they share").selectOption("auto");
    await form.getByRole("button", { name: "Save deduplication" }).click();
    await form.getByRole("status").filter({ hasText: "Deduplication saved" }).waitFor();
    await expect.poll(() => form.getByTestId("dedup-current").textContent()).toBe("Same provider delivery id within 24 hours: stored as a duplicate, not forwarded.");
    await shot("dedup-settings");
  });

  it("shows the server's refusal of a window over 7 days, keeping the saved rule", async () => {
    const form = page.getByTestId("dedup-form");
    await form.getByLabel("Window", { exact: true }).fill("8");
    await form.getByLabel("Unit").selectOption("d");
    await form.getByRole("button", { name: "Save deduplication" }).click();
    await expect.poll(() => form.getByRole("alert").textContent()).toMatch(/604,800 \(7 days\)/);
    await page.reload();
    expect(await page.getByTestId("dedup-current").textContent()).toMatch(/within 24 hours/);
  });

  it("stores a redelivery as a duplicate: filtered in Activity, linked to the first on its page, never forwarded", async () => {
    ids.first = await captureEvent(t.rehook.url, endpoint.slug, '{"ref":"refs/heads/main"}', delivery("5f1c4a52-0001"));
    ids.repeat = await captureEvent(t.rehook.url, endpoint.slug, '{"ref":"refs/heads/main"}', delivery("5f1c4a52-0001"));

    await page.goto(`${t.rehook.url}/events?endpointId=${endpoint.id}`);
    await expect.poll(() => rowIds(page)).toEqual([ids.repeat, ids.first]);
    await page.getByLabel("Status").selectOption("duplicate");
    await page.waitForURL(/[?&]status=duplicate/);
    await expect.poll(() => rowIds(page)).toEqual([ids.repeat]);

    await page.goto(`${t.rehook.url}/events/${ids.repeat}`);
    const notice = page.getByTestId("duplicate-notice");
    await notice.waitFor();
    expect(await notice.textContent()).toMatch(/not forwarded/);
    expect(await page.locator(".page-header").getByText("Duplicate", { exact: true }).count()).toBe(1);
    await shot("dedup-event");
    await notice.getByTestId("duplicate-of").click();
    await page.waitForURL(`${t.rehook.url}/events/${ids.first}`);
    await expect.poll(() => page.getByTestId("duplicate-notice").count()).toBe(0);

    // The first went to the destination; the repeat did not.
    await expect.poll(() => destination.received.length).toBe(1);
    expect(destination.received[0]!.rawHeaders).toContain("5f1c4a52-0001");
  });

  it("turns it off again: the same delivery id is forwarded", async () => {
    await page.goto(`${t.rehook.url}/endpoints/${endpoint.id}`);
    const form = page.getByTestId("dedup-form");
    await form.getByRole("radio", { name: /Off/ }).check();
    await form.getByRole("button", { name: "Save deduplication" }).click();
    await form.getByRole("status").filter({ hasText: "Deduplication saved" }).waitFor();
    await expect.poll(() => form.getByTestId("dedup-current").textContent()).toMatch(/^Off/);
    await captureEvent(t.rehook.url, endpoint.slug, '{"ref":"refs/heads/main"}', delivery("5f1c4a52-0001"));
    await expect.poll(() => destination.received.length).toBe(2);
  });

  it("logged no errors in the browser console", () => {
    expect(consoleErrors).toEqual([]);
  });
});
