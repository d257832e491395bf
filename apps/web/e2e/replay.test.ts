import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import type { Sink } from "@rehook/vitest-config/sink";
import type { TestServer } from "../test/test-server.js";
import { launchBrowser, type Browser } from "./browser.js";
import { captureEvent, createEndpoint, openDashboard, signUp, type Dashboard } from "./fixture.js";

/** The developer's local server: on 127.0.0.1 (which http://localhost reaches) at a free port. */
async function listenOnLocalhost(answer: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void): Promise<{ port: number; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => answer(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

let t: TestServer;
/** The endpoint's destination, another target for custom replays, a broken destination and its fix. */
let origin: Sink;
let custom: Sink;
let broken: Sink;
let fixed: Sink;
let browser: Browser;
let page: Page;
let consoleErrors: string[];
let watch: Dashboard["watch"];
let shot: Dashboard["shot"];

beforeAll(async () => {
  const dashboard = await openDashboard({
    sinks: {
      origin: (_req, res) => {
        res.setHeader("content-type", "application/json");
        res.end('{"ok":true,"handled":"order"}');
      },
      custom: (_req, res) => {
        res.setHeader("content-type", "text/plain");
        res.setHeader("x-served-by", "custom-sink");
        res.end("custom ok");
      },
      broken: (_req, res) => {
        res.statusCode = 500;
        res.end("database is down");
      },
      fixed: (_req, res) => {
        res.setHeader("content-type", "application/json");
        res.end('{"fixed":true}');
      },
    },
  });
  ({ t, browser, page, consoleErrors, watch, shot, sinks: { origin, custom, broken, fixed } } = dashboard);
  return dashboard.close;
});

const capture = (slug: string, body: string) =>
  captureEvent(t.rehook.url, slug, body, [
    ["Content-Type", "application/json"],
    ["X-Request-Id", "req-42"],
  ]);

async function settled(eventId: string): Promise<string> {
  let status = "pending";
  await expect
    .poll(
      async () => {
        const [row] = await t.db.query<{ status: string }>("select status from events where id = $1", [eventId]);
        status = row?.status ?? "missing";
        return status;
      },
      { timeout: 10_000 },
    )
    .not.toBe("pending");
  return status;
}

describe("replays in a real browser", () => {
  let orders: { slug: string; id: string };
  let eventId = "";
  const body = JSON.stringify({ id: "evt_9", type: "order.created", data: { total: 4200, currency: "EUR" } });

  it("signs up and creates an endpoint that forwards to a sink", async () => {
    await signUp(page, t.rehook.url, "replayer@example.com");
    orders = await createEndpoint(page, "Orders", `http://127.0.0.1:${origin.port}/hooks`);
    eventId = await capture(orders.slug, body);
    expect(await settled(eventId)).toBe("delivered");
    expect(origin.received).toHaveLength(1);
  });

  it("replays a feed row to its original destination in place, without opening the event", async () => {
    await page.getByRole("link", { name: "Activity" }).click();
    await page.getByRole("heading", { name: "Activity" }).waitFor();
    const row = page.locator(`[data-testid="event-row"][data-event-id="${eventId}"]`);
    await row.waitFor();
    await row.getByRole("button", { name: "Replay to original" }).click();
    const result = row.getByTestId("row-replay-result");
    await expect.poll(() => result.textContent(), { timeout: 10_000 }).toMatch(/Replayed\s*·\s*200/);
    expect(await result.getAttribute("data-status")).toBe("delivered");
    expect(page.url()).toBe(`${t.rehook.url}/events`);
    expect(origin.received).toHaveLength(2);
    expect(origin.received[1]!.body.equals(origin.received[0]!.body)).toBe(true);
    expect(origin.received[1]!.body.toString()).toBe(body);
    expect(origin.received[1]!.url).toBe("/hooks");
    await shot("activity-replay");
  });

  it("opens the replay dialog with R, replays to a custom URL and lists both attempts in the history", async () => {
    await page.locator(`[data-testid="event-row"][data-event-id="${eventId}"]`).getByRole("link", { name: /order\.created/ }).click();
    await page.waitForURL(`${t.rehook.url}/events/${eventId}`);
    await page.getByRole("heading", { name: "Replay history" }).waitFor();

    await page.keyboard.press("r");
    const dialog = page.getByRole("dialog", { name: "Replay event" });
    await dialog.waitFor();
    expect(await dialog.getByRole("radio", { name: "Original" }).isChecked()).toBe(true);
    expect(await dialog.textContent()).toContain(`http://127.0.0.1:${origin.port}/hooks`);
    // No staging hostname on the endpoint: the option says why it cannot be used.
    const staging = dialog.getByRole("radio", { name: "Staging" });
    expect(await staging.isDisabled()).toBe(true);
    expect(await dialog.textContent()).toContain("Set a staging hostname on the endpoint first.");

    await dialog.getByRole("radio", { name: "Custom" }).check();
    const customUrl = `http://127.0.0.1:${custom.port}/elsewhere?k=v`;
    await dialog.getByLabel("Custom URL").fill(customUrl);
    await dialog.getByRole("button", { name: "Send replay" }).click();
    const result = dialog.getByTestId("replay-result");
    await expect.poll(() => result.getAttribute("data-status"), { timeout: 10_000 }).toBe("delivered");
    expect(await result.textContent()).toContain("200");
    expect(await dialog.getByTestId("replay-destination").textContent()).toBe(customUrl);
    expect(await dialog.getByTestId("replay-response-body").textContent()).toBe("custom ok");
    expect(custom.received).toHaveLength(1);
    expect(custom.received[0]!.body.toString()).toBe(body);
    expect(custom.received[0]!.url).toBe("/elsewhere?k=v");
    // The dialog is modal: the page behind it is dimmed, so this one is of the viewport.
    await shot("replay-dialog", { fullPage: false });

    await dialog.getByRole("button", { name: "Close" }).click();
    await dialog.waitFor({ state: "hidden" });
    const history = page.getByTestId("replay-row");
    await expect.poll(() => history.count()).toBe(2);
    const texts = await history.allTextContents();
    expect(texts[0]).toContain("Custom");
    expect(texts[0]).toContain(customUrl);
    expect(texts[1]).toContain("Original");
    expect(texts[1]).toContain(`http://127.0.0.1:${origin.port}/hooks`);

    // Typing an r in a field does not open the dialog.
    await page.getByRole("button", { name: "Replay", exact: true }).click();
    expect(await dialog.getByTestId("replay-result").count()).toBe(0);
    await dialog.getByRole("radio", { name: "Custom" }).check();
    await dialog.getByLabel("Custom URL").fill("");
    await dialog.getByRole("button", { name: "Send replay" }).click();
    await expect.poll(() => dialog.getByRole("alert").textContent()).toBe("Enter the URL to send the event to.");
    await dialog.getByLabel("Custom URL").press("r");
    expect(await dialog.getByLabel("Custom URL").inputValue()).toBe("r");
    expect(await page.getByRole("dialog").count()).toBe(1);
    await page.keyboard.press("Escape");
    await dialog.waitFor({ state: "hidden" });
    await shot("event-replay-history");
  });

  it("lists every replay on /replays, with filters", async () => {
    await page.getByRole("link", { name: "Replays", exact: true }).click();
    await page.getByRole("heading", { name: "Replays", level: 1 }).waitFor();
    const rows = page.getByTestId("replay-row");
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.first().textContent()).toContain("order.created");
    expect(await rows.first().textContent()).toContain("Orders");
    await shot("replays");

    await page.getByLabel("Status").selectOption("failed");
    await page.waitForURL(`${t.rehook.url}/replays?status=failed`);
    await page.getByRole("heading", { name: "No matching replays" }).waitFor();
    await page.getByLabel("Status").selectOption("delivered");
    await page.waitForURL(`${t.rehook.url}/replays?status=delivered`);
    await expect.poll(() => rows.count()).toBe(2);
  });

  it("opens an attempt: its target, the response headers and body, and a link back to the event", async () => {
    const first = page.getByTestId("replay-row").first();
    const id = (await first.getAttribute("data-replay-id"))!;
    await first.getByRole("link", { name: /Replayed/ }).click();
    await page.waitForURL(`${t.rehook.url}/replays/${id}`);
    await page.getByRole("heading", { name: "Replay of order.created" }).waitFor();
    expect(await page.getByTestId("response-body").textContent()).toBe("custom ok");
    const headers = await page.getByTestId("response-header-row").allTextContents();
    expect(headers.some((text) => text.includes("x-served-by") && text.includes("custom-sink"))).toBe(true);
    expect(await page.getByTestId("replay-destination").textContent()).toBe(`http://127.0.0.1:${custom.port}/elsewhere?k=v`);
    await shot("replay-attempt");
    await page.getByRole("link", { name: "Open the event" }).click();
    await page.waitForURL(`${t.rehook.url}/events/${eventId}`);
  });

  it("replays an endpoint's failed events in bulk once its destination is fixed", async () => {
    const flaky = await createEndpoint(page, "Flaky", `http://127.0.0.1:${broken.port}/in`);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push(await capture(flaky.slug, JSON.stringify({ type: "invoice.paid", n: i })));
    for (const id of ids) expect(await settled(id)).toBe("failed");

    await page.getByRole("link", { name: "Flaky" }).click();
    await page.waitForURL(`${t.rehook.url}/endpoints/${flaky.id}`);
    // The URL changes before the endpoint's page replaces the list (whose create form has a
    // Destination URL field too): wait for the field that holds this endpoint's destination.
    await expect.poll(() => page.getByLabel("Destination URL").inputValue()).toBe(`http://127.0.0.1:${broken.port}/in`);
    await page.getByLabel("Destination URL").fill(`http://127.0.0.1:${fixed.port}/in`);
    await page.getByRole("button", { name: "Save changes" }).click();
    await expect.poll(() => page.getByRole("status").allTextContents()).toContainEqual(expect.stringContaining("Saved"));

    const card = page.getByRole("region", { name: "Bulk replay" });
    expect(await card.getByLabel("Events").inputValue()).toBe("failed");
    // Its one destination, by id.
    const [destination] = await t.db.query<{ id: string }>("select id from destinations where endpoint_id = $1", [flaky.id]);
    expect(await card.getByLabel("Target").inputValue()).toBe(`destination:${destination!.id}`);
    await card.getByRole("button", { name: "Replay events" }).click();
    // It asks first: three failed events to the endpoint's destination.
    await page.getByRole("dialog", { name: "Replay 3 failed events?" }).getByRole("button", { name: "Replay 3 failed events" }).click();
    const summary = card.getByTestId("bulk-summary");
    await expect.poll(() => summary.textContent(), { timeout: 15_000 }).toContain("3 replayed: 3 delivered, 0 failed");
    const progress = card.getByRole("progressbar");
    expect(await progress.getAttribute("aria-valuenow")).toBe("3");
    expect(await progress.getAttribute("aria-valuemax")).toBe("3");
    expect(await card.textContent()).toContain("3 / 3");
    expect(fixed.received).toHaveLength(3);
    expect(fixed.received.map((request) => request.body.toString()).sort()).toEqual([0, 1, 2].map((n) => JSON.stringify({ type: "invoice.paid", n })));
    await shot("bulk-replay");

    // The events stay failed; the replays are on /replays.
    for (const id of ids) expect(await settled(id)).toBe("failed");
    await card.getByRole("link", { name: /See the replays/ }).click();
    await page.waitForURL(`${t.rehook.url}/replays?endpointId=${flaky.id}`);
    await expect.poll(() => page.getByTestId("replay-row").count()).toBe(3);
  });

  it("fits a phone screen in dark mode", async () => {
    const phone = await launchBrowser({ colorScheme: "dark", width: 375, height: 780 });
    try {
      await phone.context.addCookies(await browser.context.cookies());
      const small = await phone.context.newPage();
      watch(small);
      // How far the page scrolls sideways (0: nothing sticks out of the screen).
      const overflow = () => small.evaluate<number>("document.documentElement.scrollWidth - document.documentElement.clientWidth");

      await small.goto(`${t.rehook.url}/events`);
      await small.locator(`[data-testid="event-row"][data-event-id="${eventId}"]`).getByRole("button", { name: "Replay to original" }).click();
      await expect.poll(() => small.getByTestId("row-replay-result").first().textContent(), { timeout: 10_000 }).toMatch(/Replayed/);
      expect(await overflow()).toBe(0);
      await shot("activity-replay-phone", { page: small });

      await small.goto(`${t.rehook.url}/events/${eventId}`);
      await small.getByRole("button", { name: "Replay", exact: true }).click();
      const dialog = small.getByRole("dialog", { name: "Replay event" });
      await dialog.getByRole("button", { name: "Send replay" }).click();
      await expect.poll(() => dialog.getByTestId("replay-result").getAttribute("data-status"), { timeout: 10_000 }).toBe("delivered");
      await shot("replay-dialog-phone", { page: small, fullPage: false });
      await dialog.getByRole("button", { name: "Close" }).click();
      expect(await overflow()).toBe(0);
      await shot("event-replay-history-phone", { page: small });

      await small.goto(`${t.rehook.url}/replays`);
      await expect.poll(() => small.getByTestId("replay-row").count()).toBe(7);
      expect(await overflow()).toBe(0);
      await shot("replays-phone", { page: small });

      const id = await small.getByTestId("replay-row").first().getAttribute("data-replay-id");
      await small.goto(`${t.rehook.url}/replays/${id}`);
      expect(await overflow()).toBe(0);
      await shot("replay-attempt-phone", { page: small });

      await small.goto(`${t.rehook.url}/endpoints/${orders.id}`);
      await small.getByRole("region", { name: "Bulk replay" }).getByRole("button", { name: "Replay events" }).click();
      await expect.poll(() => small.getByTestId("bulk-summary").textContent(), { timeout: 15_000 }).toContain("0 replayed");
      expect(await overflow()).toBe(0);
      await shot("bulk-replay-phone", { page: small });
    } finally {
      await phone.close();
    }
  });

  it("replays to the developer's machine from the browser and records what the browser got", async () => {
    const localRequests: Array<{ method: string; url: string; headers: Record<string, unknown>; body: Buffer }> = [];
    const local = await listenOnLocalhost((req, res, received) => {
      res.setHeader("access-control-allow-origin", "*");
      if (req.method === "OPTIONS") {
        res.setHeader("access-control-allow-methods", "*");
        res.setHeader("access-control-allow-headers", "*");
        res.statusCode = 204;
        res.end();
        return;
      }
      localRequests.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, body: received });
      res.setHeader("content-type", "application/json");
      res.end('{"local":true}');
    });
    try {
      await page.goto(`${t.rehook.url}/events/${eventId}`);
      await page.getByRole("button", { name: "Replay", exact: true }).click();
      const dialog = page.getByRole("dialog", { name: "Replay event" });
      await dialog.getByRole("radio", { name: "Local" }).check();
      expect(await dialog.textContent()).toContain("allows CORS from");
      const port = dialog.getByRole("spinbutton", { name: "Local port" });
      // Nothing chosen in this browser yet: the spec's localhost:3000.
      expect(await port.inputValue()).toBe("3000");
      expect(await dialog.textContent()).toContain("http://localhost:3000/hooks");

      // A port that cannot be: a sentence saying what to type, and nothing sent.
      await port.fill("70000");
      await dialog.getByRole("button", { name: "Send replay" }).click();
      await expect.poll(() => dialog.getByRole("alert").textContent()).toContain("a whole number from 1 to 65535");
      expect(await port.getAttribute("aria-invalid")).toBe("true");
      expect(localRequests).toHaveLength(0);

      await port.fill(String(local.port));
      expect(await dialog.textContent()).toContain(`http://localhost:${local.port}/hooks`);
      await dialog.getByRole("button", { name: "Send replay" }).click();
      await expect.poll(() => dialog.getByTestId("replay-result").getAttribute("data-status"), { timeout: 10_000 }).toBe("delivered");
      expect(await dialog.getByTestId("replay-destination").textContent()).toBe(`http://localhost:${local.port}/hooks`);
      expect(await dialog.getByTestId("replay-response-body").textContent()).toContain('"local": true');
      expect(localRequests).toHaveLength(1);
      expect(localRequests[0]).toMatchObject({ method: "POST", url: "/hooks" });
      expect(localRequests[0]!.body.toString()).toBe(body);
      expect(localRequests[0]!.headers["x-request-id"]).toBe("req-42");
      await shot("replay-local-port-light");
      await page.emulateMedia({ colorScheme: "dark", reducedMotion: "reduce" });
      await shot("replay-local-port-dark");
      await page.setViewportSize({ width: 390, height: 844 });
      await shot("replay-local-port-phone");
      await page.emulateMedia({ colorScheme: "light", reducedMotion: "no-preference" });
      await page.setViewportSize({ width: 1280, height: 860 });

      // Another target: the local answer is not left under it, as if it were that target's.
      await dialog.getByRole("radio", { name: "Original" }).check();
      expect(await dialog.getByTestId("replay-result").count()).toBe(0);
      expect(await dialog.textContent()).not.toContain('"local": true');
      await dialog.getByRole("button", { name: "Close" }).click();
      await expect.poll(() => page.getByTestId("replay-row").first().textContent()).toContain("Local");
      expect(await page.getByTestId("replay-row").first().textContent()).toContain(`http://localhost:${local.port}/hooks`);

      // This browser remembers the port: after a reload the dialog starts with it.
      await page.reload();
      await page.getByRole("button", { name: "Replay", exact: true }).click();
      await dialog.getByRole("radio", { name: "Local" }).check();
      await expect.poll(() => dialog.getByRole("spinbutton", { name: "Local port" }).inputValue()).toBe(String(local.port));
      expect(await dialog.textContent()).toContain(`http://localhost:${local.port}/hooks`);
      await dialog.getByRole("button", { name: "Close" }).click();
    } finally {
      await local.close();
    }
  });

  it("logged no errors in the browser console", () => {
    expect(consoleErrors).toEqual([]);
  });
});
