import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { PAYLOAD_PREVIEW_BYTES } from "@rehook/services";
import type { TestServer } from "../test/test-server.js";
import { captureEvent, createEndpoint, openDashboard, signUp, type Dashboard } from "./fixture.js";

let t: TestServer;
let page: Page;
let consoleErrors: string[];
let shot: Dashboard["shot"];

beforeAll(async () => {
  const dashboard = await openDashboard();
  ({ t, page, consoleErrors, shot } = dashboard);
  return dashboard.close;
});

describe("an event whose body is larger than the preview", () => {
  it("shows the preview with how much of it is shown and a link to the raw body", async () => {
    await signUp(page, t.rehook.url, "large-payload@example.com");
    const { slug } = await createEndpoint(page, "Large payloads");
    const body = JSON.stringify({ type: "export.ready", rows: "x".repeat(2 * 1024 * 1024) });
    const eventId = await captureEvent(t.rehook.url, slug, body);

    await page.goto(`${t.rehook.url}/events/${eventId}`);
    const notice = page.getByTestId("payload-truncated");
    await notice.waitFor();
    expect(await notice.textContent()).toContain(`Showing the first ${PAYLOAD_PREVIEW_BYTES.toLocaleString("en-US")} of ${Buffer.byteLength(body).toLocaleString("en-US")} bytes`);
    const link = page.getByTestId("payload-inspector").getByRole("link", { name: "Download raw" });
    expect(await link.getAttribute("href")).toBe(`/api/events/${eventId}/body`);
    expect(await link.getAttribute("download")).toBe("");
    const payload = page.getByTestId("payload");
    expect((await payload.textContent())!.startsWith('{"type":"export.ready","rows":"xxx')).toBe(true);
    expect((await payload.textContent())!.length).toBe(PAYLOAD_PREVIEW_BYTES);
    await shot("event-large-payload", { fullPage: false });
    expect(consoleErrors).toEqual([]);
  });
});
