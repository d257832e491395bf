import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../test/test-server.js";
import { openDashboard, signUp, type Dashboard } from "./fixture.js";

// The API reference's responses: status badges beside their descriptions (never over them),
// and each success answer's example and fields, read from the OpenAPI document.

let t: TestServer;
let page: Page;
let consoleErrors: string[];
let shot: Dashboard["shot"];

beforeAll(async () => {
  const dashboard = await openDashboard();
  ({ t, page, consoleErrors, shot } = dashboard);
  return dashboard.close;
});

interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

/** Each response row's badge, its description (the row's second element) and the row itself. */
function responseRows(): Promise<Array<{ text: string; badge: Box; description: Box; row: Box }>> {
  return page.locator(".api-responses li").evaluateAll((rows) =>
    rows.map((row) => {
      const box = (element: { getBoundingClientRect(): Box }) => {
        const { left, right, top, bottom } = element.getBoundingClientRect();
        return { left, right, top, bottom };
      };
      return { text: row.textContent ?? "", badge: box(row.children[0]!), description: box(row.children[1]!), row: box(row) };
    }),
  );
}

const overlaps = (a: Box, b: Box) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

const operation = (path: string, method: string) =>
  page.locator(".api-operation").filter({ has: page.locator(".api-method", { hasText: new RegExp(`^${method}$`) }) }).filter({ has: page.getByTestId("api-path").filter({ hasText: new RegExp(`^${path.replace(/[{}]/g, "\\$&")}$`) }) });

describe("the API reference's answers in a real browser", () => {
  it("signs up and opens the reference", async () => {
    await signUp(page, t.rehook.url, "api-docs-answers@example.com");
    await page.goto(`${t.rehook.url}/api-docs`);
    await page.getByRole("heading", { name: "API reference", level: 1 }).waitFor();
  });

  for (const { width, name } of [
    { width: 1280, name: "a desktop" },
    { width: 390, name: "a phone" },
  ]) {
    it(`puts every status badge beside its description, never over it, on ${name}`, async () => {
      await page.setViewportSize({ width, height: 860 });
      const rows = await responseRows();
      expect(rows.length).toBeGreaterThan(40);
      // The longest reason phrase is among them.
      expect(rows.some((row) => row.text.includes("415 Unsupported Media Type"))).toBe(true);
      for (const row of rows) {
        expect(overlaps(row.badge, row.description), `${row.text} at ${width}px`).toBe(false);
        expect(row.badge.right, `${row.text} at ${width}px: the badge stays in its row`).toBeLessThanOrEqual(row.row.right);
        expect(row.description.right, `${row.text} at ${width}px: the description stays in its row`).toBeLessThanOrEqual(row.row.right + 0.5);
      }
    });
  }

  it("shows each success answer's example and fields: an event, a page of events, an export line", async () => {
    await page.setViewportSize({ width: 1280, height: 860 });
    const event = operation("/events/{id}", "GET");
    const example = event.getByTestId("response-example");
    expect(await example.count()).toBe(1);
    expect(await event.locator(".api-response-example").textContent()).toContain("200 OK");
    const shown = JSON.parse((await example.textContent())!) as Record<string, unknown>;
    expect(shown).toMatchObject({ event_type: "invoice.paid", payload_encoding: "json", attempts: [{ attempt: 1 }] });
    const fields = event.getByTestId("response-fields");
    await fields.locator("summary").click();
    const names = await fields.locator(".api-field-name").allTextContents();
    for (const name of ["id", "event_type", "payload", "response.status", "attempts[].outcome"]) expect(names).toContain(name);

    const list = JSON.parse((await operation("/events", "GET").getByTestId("response-example").textContent())!) as { data: unknown[]; meta: unknown };
    expect(list.data).toHaveLength(1);
    expect(list.meta).toMatchObject({ limit: 20, offset: 0 });
    const exported = (await operation("/events/export", "GET").getByTestId("response-example").textContent())!;
    expect(JSON.parse(exported)).toMatchObject({ event_type: "invoice.paid" });
    // Deletes answer 204 with no body: nothing to show.
    expect(await operation("/events/{id}", "DELETE").getByTestId("response-example").count()).toBe(0);
    // Every operation with a body on success shows its example: all but the four deletes (event, endpoint, destination, alert rule).
    expect(await page.getByTestId("response-example").count()).toBe((await page.locator(".api-operation").count()) - 4);

    await event.scrollIntoViewIfNeeded();
    await shot("api-docs-answers", { fullPage: false });
    expect(consoleErrors).toEqual([]);
  });
});
