import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { PAYLOAD_PREVIEW_BYTES } from "@rehook/services";
import type { TestServer } from "../test/test-server.js";
import { captureEvent, createEndpoint, openDashboard, signUp, type Dashboard } from "./fixture.js";

let t: TestServer;
let page: Page;
let consoleErrors: string[];
let shot: Dashboard["shot"];
let slug: string;

const MiB = 1024 * 1024;

beforeAll(async () => {
  const dashboard = await openDashboard();
  ({ t, page, consoleErrors, shot } = dashboard);
  await signUp(page, t.rehook.url, "large-payload@example.com");
  ({ slug } = await createEndpoint(page, "Large payloads"));
  return dashboard.close;
});

const inspector = () => page.getByTestId("payload-inspector");
const notice = () => page.getByTestId("payload-truncated");

async function openEvent(eventId: string): Promise<void> {
  await page.goto(`${t.rehook.url}/events/${eventId}`);
  await notice().waitFor();
}

describe("an event whose body is larger than the preview", { timeout: 90_000 }, () => {
  it("shows the preview as a JSON tree with how much of it is shown, its detected type, and a link to the raw body", async () => {
    const body = JSON.stringify({ type: "export.ready", rows: "x".repeat(2 * MiB) });
    const eventId = await captureEvent(t.rehook.url, slug, body);

    await openEvent(eventId);
    expect(await notice().textContent()).toContain(`Showing the first ${PAYLOAD_PREVIEW_BYTES.toLocaleString("en-US")} of ${Buffer.byteLength(body).toLocaleString("en-US")} bytes`);
    expect(await notice().textContent()).toContain("The tree and Pretty show the JSON up to that point");
    const link = inspector().getByRole("link", { name: "Download raw" });
    expect(await link.getAttribute("href")).toBe(`/api/events/${eventId}/body`);
    expect(await link.getAttribute("download")).toBe("");
    // The type is read from the whole body at capture (a 2 MiB body used to be "unknown").
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("export.ready");

    // A tree of the first part: the cut string keeps what the preview holds of it.
    expect(await inspector().getAttribute("data-kind")).toBe("json");
    expect(await inspector().getAttribute("data-view")).toBe("tree");
    const tree = page.getByTestId("payload");
    expect(await tree.locator('[data-pointer="/type"]').textContent()).toBe('type: "export.ready"');
    const rows = (await tree.locator('[data-pointer="/rows"]').textContent())!;
    expect(rows.startsWith('rows: "xxx')).toBe(true);
    expect(rows.length).toBe('rows: ""'.length + PAYLOAD_PREVIEW_BYTES - '{"type":"export.ready","rows":"'.length);
    expect(await tree.getByTestId("json-cut").textContent()).toContain("the preview ends here");
    await shot("event-large-payload", { fullPage: false });

    // Raw: the preview's text exactly as received.
    await inspector().getByRole("button", { name: "Raw", exact: true }).click();
    const raw = (await page.getByTestId("payload").textContent())!;
    expect(raw.length).toBe(PAYLOAD_PREVIEW_BYTES);
    expect(body.startsWith(raw)).toBe(true);
    expect(consoleErrors).toEqual([]);
  });

  it("a 5 MiB Stripe event whose type comes after a big nested object: its type, a tree of its first part, pretty text", async () => {
    const rows = Array.from({ length: 52_000 }, (_, i) => ({ id: `row_${i}`, sku: `SKU-${i}`, price: { amount: i * 3, currency: "EUR" }, tags: ["new", "sale"] }));
    const body = JSON.stringify({ id: "evt_big", object: "event", data: { object: { rows } }, type: "invoice.finalized" });
    expect(Buffer.byteLength(body)).toBeGreaterThan(5 * MiB);
    const eventId = await captureEvent(t.rehook.url, slug, body, [
      ["Content-Type", "application/json"],
      ["Stripe-Signature", "t=1,v1=0"],
    ]);

    await openEvent(eventId);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("invoice.finalized");
    expect(await page.locator(".source-chip").textContent()).toBe("stripe");

    const tree = page.getByTestId("payload");
    await tree.locator('[data-pointer="/data/object/rows"]').waitFor();
    expect(await tree.locator('[data-pointer="/id"]').textContent()).toBe('id: "evt_big"');
    // The rows the preview holds, counted with a "+" (the body has more), the first page shown.
    const summary = (await tree.locator('[data-pointer="/data/object/rows"] > .jt-row').textContent())!;
    const shownRows = Number(/\[([\d,]+)\+ items\]/.exec(summary)![1]!.replaceAll(",", ""));
    expect(shownRows).toBeGreaterThan(1000);
    expect(shownRows).toBeLessThan(rows.length);
    await tree.locator('[data-pointer="/data/object/rows"] > .jt-row button').click();
    expect(await tree.locator('[data-pointer="/data/object/rows/0/sku"]').count()).toBe(0);
    await tree.locator('[data-pointer="/data/object/rows/0"] > .jt-row button').click();
    expect(await tree.locator('[data-pointer="/data/object/rows/0/sku"]').textContent()).toBe('sku: "SKU-0"');
    await tree.locator('[data-pointer="/data/object/rows"] > .jt-row').scrollIntoViewIfNeeded();
    await shot("event-large-payload-tree", { fullPage: false });

    await inspector().getByRole("button", { name: "Pretty", exact: true }).click();
    const pretty = (await page.getByTestId("payload").textContent())!;
    expect(pretty).toContain('"sku": "SKU-0"');
    expect(pretty).toContain('"currency": "EUR"');
    await shot("event-large-payload-pretty", { fullPage: false });
    expect(consoleErrors).toEqual([]);
  });
});
