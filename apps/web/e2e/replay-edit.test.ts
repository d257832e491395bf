import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import type { Sink } from "@rehook/vitest-config/sink";
import { head, rawRequest } from "../test/raw-http.js";
import type { TestServer } from "../test/test-server.js";
import { captureEvent, createEndpoint, openDashboard, openHydrated, signUp, type Dashboard } from "./fixture.js";

let t: TestServer;
let origin: Sink;
let page: Page;
let consoleErrors: string[];
let shot: Dashboard["shot"];

beforeAll(async () => {
  const dashboard = await openDashboard({ sinks: { origin: (_req, res) => res.end("ok") } });
  ({ t, page, consoleErrors, shot, sinks: { origin } } = dashboard);
  return dashboard.close;
});

/** Headers as received, minus what the sending connection sets itself. */
function received(raw: string[]): Array<[string, string]> {
  const list: Array<[string, string]> = [];
  for (let i = 0; i < raw.length; i += 2) list.push([raw[i]!, raw[i + 1]!]);
  return list.filter(([name]) => !["host", "connection", "content-length"].includes(name.toLowerCase()));
}

describe("edit-and-replay in a real browser", () => {
  const body = '{"id":"evt_1","total":10}';
  let eventId = "";

  it("captures an event that is forwarded as it came", async () => {
    await signUp(page, t.rehook.url, "editor@example.com");
    const endpoint = await createEndpoint(page, "Edits", `http://127.0.0.1:${origin.port}/hooks`);
    eventId = await captureEvent(t.rehook.url, endpoint.slug, body, [
      ["Content-Type", "application/json"],
      ["X-Request-Id", "req-1"],
    ]);
    await expect.poll(() => origin.received.length, { timeout: 10_000 }).toBe(1);
  });

  it("opens the dialog with R, edits the method, a header and the JSON body, and the destination receives them", async () => {
    await openHydrated(page, `${t.rehook.url}/events/${eventId}`);
    await page.keyboard.press("r");
    const dialog = page.getByRole("dialog", { name: "Replay event" });
    await dialog.waitFor();
    await dialog.getByRole("button", { name: "Edit request" }).click();

    const bodyField = dialog.getByLabel(/^Body \(JSON/);
    await bodyField.waitFor();
    // The JSON body is offered pretty-printed.
    expect(await bodyField.inputValue()).toBe(JSON.stringify(JSON.parse(body), null, 2));
    expect(await dialog.getByLabel("Header 2 name").inputValue()).toBe("X-Request-Id");

    await dialog.getByLabel("Method").selectOption("PUT");
    await dialog.getByLabel("Header 2 value").fill("req-edited");
    // Invalid JSON is flagged as you type, and not sent.
    await bodyField.fill('{"id": "evt_1", ');
    await expect.poll(() => dialog.getByRole("alert").textContent()).toMatch(/^The body is not valid JSON/);
    await bodyField.fill('{"id": "evt_1", "total": 99}');
    await expect.poll(() => dialog.getByRole("alert").count()).toBe(0);
    await shot("replay-edit", { fullPage: false });

    await dialog.getByRole("button", { name: "Send replay" }).click();
    const result = dialog.getByTestId("replay-result");
    await expect.poll(() => result.getAttribute("data-status"), { timeout: 10_000 }).toBe("delivered");
    expect(await dialog.getByTestId("replay-edited").count()).toBe(1);
    expect(origin.received).toHaveLength(2);
    const got = origin.received[1]!;
    expect(got.method).toBe("PUT");
    expect(got.body.toString()).toBe('{"id": "evt_1", "total": 99}');
    expect(received(got.rawHeaders)).toEqual([
      ["Content-Type", "application/json"],
      ["X-Request-Id", "req-edited"],
    ]);
  });

  it("resets to the original, and an unedited send goes out as the captured bytes", async () => {
    const dialog = page.getByRole("dialog", { name: "Replay event" });
    await dialog.getByRole("button", { name: "Reset to original" }).click();
    expect(await dialog.getByLabel("Method").inputValue()).toBe("POST");
    expect(await dialog.getByLabel("Header 2 value").inputValue()).toBe("req-1");
    await dialog.getByRole("button", { name: "Send again" }).click();
    await expect.poll(() => origin.received.length, { timeout: 10_000 }).toBe(3);
    const got = origin.received[2]!;
    expect(got.method).toBe("POST");
    expect(got.body.toString()).toBe(body);
    await expect.poll(() => dialog.getByTestId("replay-result").getAttribute("data-status")).toBe("delivered");
    expect(await dialog.getByTestId("replay-edited").count()).toBe(0);
    await dialog.getByRole("button", { name: "Close" }).click();
    await dialog.waitFor({ state: "hidden" });
    // The history marks the edited attempt only.
    await expect.poll(() => page.getByTestId("replay-row").count()).toBe(2);
    expect(await page.getByTestId("replay-row").nth(1).getByTestId("replay-edited").count()).toBe(1);
    expect(await page.getByTestId("replay-row").nth(0).getByTestId("replay-edited").count()).toBe(0);
  });

  it("shows the edited attempt's request sent on its page, with the Edited badge", async () => {
    const edited = page.getByTestId("replay-row").nth(1);
    const id = (await edited.getAttribute("data-replay-id"))!;
    await page.goto(`${t.rehook.url}/replays/${id}`);
    await page.getByRole("heading", { name: "Request sent (edited)" }).waitFor();
    expect(await page.getByTestId("replay-edited").count()).toBe(1);
    expect(await page.getByTestId("request-body").textContent()).toContain("99");
    const headers = await page.getByTestId("request-header-row").allTextContents();
    expect(headers.some((text) => text.includes("X-Request-Id") && text.includes("req-edited"))).toBe(true);
  });

  it("offers a binary body as base64", async () => {
    const endpoint = await createEndpoint(page, "Binary", `http://127.0.0.1:${origin.port}/bin`);
    const bytes = Buffer.from([0x00, 0xff, 0xfe, 0x80]); // not UTF-8
    const captured = await rawRequest(t.rehook.url, [head("POST", `/api/webhook/${endpoint.slug}`, [["Content-Type", "application/octet-stream"], ["Content-Length", "4"]]), bytes]);
    const binaryId = JSON.parse(captured.body).eventId as string;
    await openHydrated(page, `${t.rehook.url}/events/${binaryId}`);
    await page.keyboard.press("r");
    const dialog = page.getByRole("dialog", { name: "Replay event" });
    await dialog.getByRole("button", { name: "Edit request" }).click();
    const bodyField = dialog.getByLabel("Body (binary, as base64)");
    await bodyField.waitFor();
    expect(await bodyField.inputValue()).toBe(bytes.toString("base64"));
    await dialog.getByRole("button", { name: "Close" }).click();
  });

  it("edits the path and query, and sends malformed JSON as typed when asked to", async () => {
    await openHydrated(page, `${t.rehook.url}/events/${eventId}`);
    await page.keyboard.press("r");
    const dialog = page.getByRole("dialog", { name: "Replay event" });
    await dialog.getByRole("button", { name: "Edit request" }).click();
    const bodyField = dialog.getByLabel(/^Body \(JSON/);
    await bodyField.waitFor();
    // The event was captured without a sub-path or query.
    expect(await dialog.getByLabel("Path").inputValue()).toBe("");
    expect(await dialog.getByLabel("Query").inputValue()).toBe("");
    await dialog.getByLabel("Path").fill("/orders/42");
    await dialog.getByLabel("Query").fill("attempt=2");

    const broken = '{"id": "evt_1", "total": ';
    await bodyField.fill(broken);
    await expect.poll(() => dialog.getByRole("alert").textContent()).toMatch(/^The body is not valid JSON/);
    const edited = () => origin.received.filter((request) => request.url.startsWith("/hooks/orders/"));
    await dialog.getByRole("button", { name: "Send replay" }).click();
    // Refused until the user says to send it as typed.
    await expect.poll(() => dialog.getByRole("alert").count()).toBeGreaterThan(0);
    expect(edited()).toHaveLength(0);
    await dialog.getByLabel("Send as typed").check();
    await dialog.getByRole("button", { name: "Send replay" }).click();
    await expect.poll(() => edited().length, { timeout: 10_000 }).toBe(1);
    const got = edited()[0]!;
    expect(got.url).toBe("/hooks/orders/42?attempt=2");
    expect(got.body.toString()).toBe(broken);
    await expect.poll(() => dialog.getByTestId("replay-result").getAttribute("data-status"), { timeout: 10_000 }).toBe("delivered");
    expect(await dialog.getByTestId("replay-edited").count()).toBe(1);
    await dialog.getByRole("button", { name: "Close" }).click();
  });

  it("logged no errors in the browser console", () => {
    expect(consoleErrors).toEqual([]);
  });
});
