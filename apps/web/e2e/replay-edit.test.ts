import type { Locator, Page } from "playwright-core";
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

/** A text box as the page sees it (the e2e files are typed without the DOM's types). */
type TextBox = { focus(): void; setSelectionRange(start: number, end: number): void };

/** Selects characters start to end of a text box, as a user does before typing over them. */
function selectText(field: Locator, start: number, end: number): Promise<void> {
  return field.evaluate((element, [from, to]) => {
    const box = element as unknown as TextBox;
    box.focus();
    box.setSelectionRange(from!, to!);
  }, [start, end]);
}

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
    // The JSON body is offered as it was captured, never re-formatted.
    expect(await bodyField.inputValue()).toBe(body);
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

  it("changes one number of a compact JSON body and sends the original layout with only that number changed; the byte count shown is what arrives", async () => {
    const compact = '{"id":"evt_42","type":"invoice.paid","data":{"amount":1999,"currency":"eur"}}';
    const endpoint = await createEndpoint(page, "Compact", `http://127.0.0.1:${origin.port}/compact`);
    const compactId = await captureEvent(t.rehook.url, endpoint.slug, compact);
    const arrived = () => origin.received.filter((request) => request.url === "/compact");
    await expect.poll(() => arrived().length, { timeout: 10_000 }).toBe(1);

    await openHydrated(page, `${t.rehook.url}/events/${compactId}`);
    await page.keyboard.press("r");
    const dialog = page.getByRole("dialog", { name: "Replay event" });
    await dialog.getByRole("button", { name: "Edit request" }).click();
    const bodyField = dialog.getByLabel(/^Body \(JSON/);
    await bodyField.waitFor();
    expect(await bodyField.inputValue()).toBe(compact);
    const count = dialog.getByTestId("replay-body-bytes");
    expect(await count.textContent()).toBe(`${compact.length} bytes will be sent`);

    // Select 1999 in the text box and type over it, as a user does.
    const at = compact.indexOf("1999");
    await selectText(bodyField, at, at + 4);
    await page.keyboard.type("25000");
    const edited = compact.replace("1999", "25000");
    await expect.poll(() => count.textContent()).toBe(`${Buffer.byteLength(edited)} bytes will be sent`);
    await shot("replay-edit-compact", { fullPage: false });

    await dialog.getByRole("button", { name: "Send replay" }).click();
    await expect.poll(() => arrived().length, { timeout: 10_000 }).toBe(2);
    const got = arrived()[1]!;
    expect(got.body.toString()).toBe(edited);
    expect(got.body.length).toBe(Number(await count.getAttribute("data-bytes")));
    await expect.poll(() => dialog.getByTestId("replay-result").getAttribute("data-status"), { timeout: 10_000 }).toBe("delivered");
    expect(await dialog.getByTestId("replay-edited").count()).toBe(1);

    // Format is an explicit action: the indented text is what goes, counted as it will go.
    await dialog.getByRole("button", { name: "Format JSON" }).click();
    const formatted = JSON.stringify(JSON.parse(edited), null, 2);
    expect(await bodyField.inputValue()).toBe(formatted);
    expect(await count.textContent()).toBe(`${formatted.length} bytes will be sent`);
    await dialog.getByRole("button", { name: "Send again" }).click();
    await expect.poll(() => arrived().length, { timeout: 10_000 }).toBe(3);
    expect(arrived()[2]!.body.toString()).toBe(formatted);
    await dialog.getByRole("button", { name: "Close" }).click();
  });

  it("sends the original bytes when the editor is opened and nothing is changed, and counts them", async () => {
    const compact = '{"id":"evt_43","amount":12345678901234567890,"note":"caf\u00e9"}';
    const endpoint = await createEndpoint(page, "Untouched", `http://127.0.0.1:${origin.port}/untouched`);
    const untouchedId = await captureEvent(t.rehook.url, endpoint.slug, compact);
    const arrived = () => origin.received.filter((request) => request.url === "/untouched");
    await expect.poll(() => arrived().length, { timeout: 10_000 }).toBe(1);

    await openHydrated(page, `${t.rehook.url}/events/${untouchedId}`);
    await page.keyboard.press("r");
    const dialog = page.getByRole("dialog", { name: "Replay event" });
    await dialog.getByRole("button", { name: "Edit request" }).click();
    const count = dialog.getByTestId("replay-body-bytes");
    await count.waitFor();
    expect(await dialog.getByLabel(/^Body \(JSON/).inputValue()).toBe(compact);
    expect(await dialog.getByText("the original bytes, unchanged").count()).toBe(1);
    await dialog.getByRole("button", { name: "Send replay" }).click();
    await expect.poll(() => arrived().length, { timeout: 10_000 }).toBe(2);
    expect(arrived()[1]!.body.equals(arrived()[0]!.body)).toBe(true);
    expect(arrived()[1]!.body.toString()).toBe(compact);
    expect(arrived()[1]!.body.length).toBe(Number(await count.getAttribute("data-bytes")));
    await expect.poll(() => dialog.getByTestId("replay-result").getAttribute("data-status"), { timeout: 10_000 }).toBe("delivered");
    expect(await dialog.getByTestId("replay-edited").count()).toBe(0);
    await dialog.getByRole("button", { name: "Close" }).click();
  });

  it("keeps a text body's CRLF line breaks when a word is changed", async () => {
    const crlf = "line one\r\nline two\r\n";
    const endpoint = await createEndpoint(page, "Lines", `http://127.0.0.1:${origin.port}/lines`);
    const linesId = await captureEvent(t.rehook.url, endpoint.slug, crlf, [["Content-Type", "text/plain"]]);
    const arrived = () => origin.received.filter((request) => request.url === "/lines");
    await expect.poll(() => arrived().length, { timeout: 10_000 }).toBe(1);
    await openHydrated(page, `${t.rehook.url}/events/${linesId}`);
    await page.keyboard.press("r");
    const dialog = page.getByRole("dialog", { name: "Replay event" });
    await dialog.getByRole("button", { name: "Edit request" }).click();
    const bodyField = dialog.getByLabel(/^Body \(text/);
    await bodyField.waitFor();
    const at = "line one\nline ".length;
    await selectText(bodyField, at, at + 3);
    await page.keyboard.type("2");
    const count = dialog.getByTestId("replay-body-bytes");
    await expect.poll(() => count.getAttribute("data-bytes")).toBe(String(crlf.length - 2));
    await dialog.getByRole("button", { name: "Send replay" }).click();
    await expect.poll(() => arrived().length, { timeout: 10_000 }).toBe(2);
    expect(arrived()[1]!.body.toString()).toBe("line one\r\nline 2\r\n");
    await dialog.getByRole("button", { name: "Close" }).click();
  });

  it("logged no errors in the browser console", () => {
    expect(consoleErrors).toEqual([]);
  });
});
