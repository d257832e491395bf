import { readFile } from "node:fs/promises";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { PAYLOAD_PREVIEW_BYTES } from "@rehook/services";
import type { TestServer } from "../test/test-server.js";
import { createEndpoint, openDashboard, signUp, type Dashboard } from "./fixture.js";

// The event page's payload inspector, state by state, each photographed in the light and
// dark themes and on a phone (e2e/screenshots/inspector-*.png).

const MiB = 1024 * 1024;
let t: TestServer;
let page: Page;
let consoleErrors: string[];
let shot: Dashboard["shot"];
let slug = "";

beforeAll(async () => {
  const dashboard = await openDashboard();
  ({ t, page, consoleErrors, shot } = dashboard);
  await signUp(page, t.rehook.url, "inspector@example.com");
  ({ slug } = await createEndpoint(page, "Inspector"));
  return dashboard.close;
});

/** POSTs these exact bytes to the capture URL (path and query after the slug) and answers the event id. */
async function capture(body: Buffer | string, headers: Record<string, string>, pathAndQuery = ""): Promise<string> {
  const response = await fetch(`${t.rehook.url}/api/webhook/${slug}${pathAndQuery}`, { method: "POST", headers, body });
  expect(response.status).toBe(200);
  return ((await response.json()) as { eventId: string }).eventId;
}

async function openEvent(id: string) {
  await page.goto(`${t.rehook.url}/events/${id}`);
  await page.getByTestId("payload-inspector").waitFor();
}

const inspector = () => page.getByTestId("payload-inspector");
const viewButton = (name: string) => inspector().getByRole("group", { name: "Show the body as" }).getByRole("button", { name, exact: true });
const clipboard = () => page.evaluate<string>("navigator.clipboard.readText()");
/** How far the page scrolls sideways (0: nothing sticks out of the screen). */
const overflow = () => page.evaluate<number>("document.documentElement.scrollWidth - document.documentElement.clientWidth");

/** The state photographed three ways: light and dark at desktop width, and a phone (checked for sideways scrolling). */
async function threeShots(name: string) {
  // Reduced motion: no colour transition caught halfway by the switch of theme.
  const settle = () => page.evaluate("new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))");
  await page.emulateMedia({ colorScheme: "light", reducedMotion: "reduce" });
  await settle();
  await shot(`inspector-${name}-light`);
  await page.emulateMedia({ colorScheme: "dark", reducedMotion: "reduce" });
  await settle();
  await shot(`inspector-${name}-dark`);
  await page.emulateMedia({ colorScheme: "light", reducedMotion: "reduce" });
  await page.setViewportSize({ width: 390, height: 844 });
  try {
    await expect.poll(overflow).toBe(0);
    await settle();
    await shot(`inspector-${name}-phone`);
  } finally {
    await page.emulateMedia({ colorScheme: "light", reducedMotion: "no-preference" });
    await page.setViewportSize({ width: 1280, height: 860 });
  }
}

describe("the payload inspector", { timeout: 90_000 }, () => {
  it("JSON: a collapsible tree with search, pretty and raw text with line numbers, the query string as a table", async () => {
    const document = {
      type: "invoice.paid",
      customer: { name: "Ada Lovelace", email: "ada@example.com", address: { city: "London", lines: ["12 St James's Square"] } },
      lines: Array.from({ length: 250 }, (_, i) => ({ id: `li_${i}`, amount: i * 100, note: i === 180 ? "needle in line 180" : null })),
      paid: true,
    };
    // Spacing a pretty-printer would not keep: "Copy payload" must copy it as it came.
    const raw = JSON.stringify(document).replace('"type":', '"type" :  ');
    const id = await capture(raw, { "content-type": "application/json" }, "/hooks?source=ci&tag=a&tag=b%20c&empty=");
    await openEvent(id);

    expect(await inspector().getAttribute("data-view")).toBe("tree");
    expect(await page.getByTestId("payload-kind").textContent()).toBe("JSON");
    const tree = page.getByTestId("payload");
    // A large array starts closed: its rows are not in the DOM until opened.
    await tree.locator('[data-pointer="/customer/name"]').waitFor();
    expect(await tree.locator('[data-pointer="/lines/0"]').count()).toBe(0);
    const lines = tree.locator('[data-pointer="/lines"] > .jt-row .jt-toggle');
    expect(await lines.getAttribute("aria-expanded")).toBe("false");
    expect(await lines.textContent()).toContain("[250 items]");

    // Search opens the way to a match past the first page of the array and marks it.
    await page.getByTestId("json-search").fill("needle");
    await expect.poll(() => page.getByTestId("json-search-count").textContent()).toBe("1 of 1 match");
    const match = tree.locator('[data-pointer="/lines/180/note"]');
    await match.waitFor();
    expect(await match.locator("mark.is-current").textContent()).toBe("needle");
    expect(await tree.locator('[data-pointer="/lines/150"]').count()).toBe(0);
    expect(await tree.locator(".jt-gap").first().textContent()).toContain("80 more");
    await page.getByTestId("json-search").fill("ada");
    await expect.poll(() => page.getByTestId("json-search-count").textContent()).toBe("1 of 2 matches");
    await page.getByTestId("json-search").press("Enter");
    await expect.poll(() => page.getByTestId("json-search-count").textContent()).toBe("2 of 2 matches");
    expect(await tree.locator('[data-pointer="/customer/email"] mark.is-current').textContent()).toBe("ada");
    await threeShots("json-tree-search");

    // Expand all, collapse all.
    await page.getByTestId("json-search").fill("");
    await inspector().getByRole("button", { name: "Expand all" }).click();
    await tree.locator('[data-pointer="/lines/99/id"]').waitFor();
    await inspector().getByRole("button", { name: "Collapse all" }).click();
    await expect.poll(() => tree.locator('[data-pointer="/customer/name"]').count()).toBe(0);
    expect(await tree.locator('[data-pointer="/type"]').count()).toBe(1);

    // Pretty: indented, numbered; Raw: the bytes as they came, numbered.
    await viewButton("Pretty").click();
    const pretty = JSON.stringify(document, null, 2);
    await expect.poll(() => page.getByTestId("payload").textContent()).toBe(pretty);
    const numbers = (await page.getByTestId("line-numbers").textContent())!.split("\n");
    expect(numbers.length).toBe(pretty.split("\n").length);
    expect(numbers.slice(0, 3)).toEqual(["1", "2", "3"]);
    expect(await viewButton("Pretty").getAttribute("aria-pressed")).toBe("true");
    await threeShots("json-pretty");
    await viewButton("Raw").click();
    await expect.poll(() => page.getByTestId("payload").textContent()).toBe(raw);
    expect(await page.getByTestId("line-numbers").textContent()).toBe("1");

    // The query string, decoded, duplicates kept.
    const query = await page.getByTestId("query-table-row").allTextContents();
    expect(query).toEqual(["sourceci", "taga", "tagb c", "emptyempty"]);

    // Copy payload: the raw text exactly; Copy pretty: indented; Copy as curl built from the same text.
    await page.getByRole("button", { name: "Copy payload" }).click();
    await expect.poll(clipboard).toBe(raw);
    await page.getByRole("button", { name: "Copy as curl" }).click();
    await expect.poll(clipboard).toMatch(/^curl -X POST '.+\/api\/webhook\/inspector-[a-z0-9]+\/hooks\?source=ci&tag=a&tag=b%20c&empty=' \\\n/);
    expect(await clipboard()).toContain(` \\\n  -H 'content-type: application/json' \\\n`);
    expect((await clipboard()).endsWith(` \\\n  --data-binary '${raw.replaceAll("'", "'\\''")}'`)).toBe(true);
    await inspector().getByRole("button", { name: "Copy pretty" }).click();
    await expect.poll(clipboard).toBe(pretty);

    // The download link is there for a small body too: every byte, its own type.
    const download = inspector().getByRole("link", { name: "Download raw" });
    expect(await download.getAttribute("download")).toBe("");
    const [file] = await Promise.all([page.waitForEvent("download"), download.click()]);
    expect(file.suggestedFilename()).toBe(`event-${id}.json`);
    expect(await readFile((await file.path())!, "utf8")).toBe(raw);
    expect(consoleErrors).toEqual([]);
  });

  it("a 10 MiB JSON event: a bounded page, usable, the preview copied and every byte downloaded", async () => {
    const row = (i: number) => JSON.stringify({ id: `row_${i}`, sku: `SKU-${(i * 7919) % 100_000}`, quantity: i % 17, note: "lorem ipsum dolor sit amet" });
    const rows: string[] = [];
    let size = 40;
    for (let i = 0; size < 10 * MiB - 200; i += 1) {
      rows.push(row(i));
      size += rows.at(-1)!.length + 1;
    }
    const body = `{"type":"export.ready","rows":[${rows.join(",")}]}`;
    expect(Buffer.byteLength(body)).toBeGreaterThan(9.9 * MiB);
    expect(Buffer.byteLength(body)).toBeLessThanOrEqual(10 * MiB);
    const id = await capture(body, { "content-type": "application/json" });

    const timings: number[] = [];
    let documentBytes = 0;
    for (let round = 0; round < 3; round += 1) {
      await page.goto(`${t.rehook.url}/events/${id}`, { waitUntil: "load" });
      const navigation = await page.evaluate<{ transfer: number; bytes: number; load: number }>(`(() => {
        const entry = performance.getEntriesByType("navigation")[0];
        return { transfer: entry.transferSize, bytes: entry.encodedBodySize, load: entry.loadEventStart - entry.startTime };
      })()`);
      // The document carries the preview once (in the loader data), not the 10 MiB, nor the preview twice.
      expect(navigation.bytes).toBeGreaterThan(PAYLOAD_PREVIEW_BYTES);
      expect(navigation.bytes).toBeLessThan(1.5 * 1000 * 1000);
      expect(navigation.transfer).toBeLessThan(1.5 * 1000 * 1000);
      timings.push(Math.round(navigation.load));
      documentBytes = navigation.bytes;
    }
    process.stdout.write(`event page with a 10 MiB body: navigation to load event ${timings.join(", ")} ms, document ${documentBytes.toLocaleString("en-US")} bytes\n`);

    const notice = page.getByTestId("payload-truncated");
    await notice.waitFor();
    expect(await notice.textContent()).toContain(`Showing the first ${PAYLOAD_PREVIEW_BYTES.toLocaleString("en-US")} of ${Buffer.byteLength(body).toLocaleString("en-US")} bytes`);
    expect(await notice.textContent()).toContain("The tree and Pretty show the JSON up to that point");
    // Usable: the preview's JSON is on screen as a tree (its rows counted up to the cut), the views and copy buttons answer.
    const tree = page.getByTestId("payload");
    await tree.locator('[data-pointer="/rows"]').waitFor();
    expect(await inspector().getAttribute("data-view")).toBe("tree");
    expect(await tree.locator('[data-pointer="/type"]').textContent()).toBe('type: "export.ready"');
    expect(await tree.locator('[data-pointer="/rows"] > .jt-row').textContent()).toMatch(/^rows: \[[\d,]+\+ items\]$/);
    await viewButton("Raw").click();
    const text = (await page.getByTestId("payload").textContent())!;
    expect(text.length).toBe(PAYLOAD_PREVIEW_BYTES);
    expect(body.startsWith(text)).toBe(true);
    await page.getByRole("button", { name: "Copy preview" }).click();
    await expect.poll(clipboard).toBe(text);
    await threeShots("large");

    const [file] = await Promise.all([page.waitForEvent("download"), inspector().getByRole("link", { name: "Download raw" }).click()]);
    expect(file.suggestedFilename()).toBe(`event-${id}.json`);
    expect((await readFile((await file.path())!)).equals(Buffer.from(body))).toBe(true);
    expect(consoleErrors).toEqual([]);
  });

  it("a JSON document near the preview size: sent once, the tree opened lazily, quick to expand and search", async () => {
    const document = {
      type: "catalog.synced",
      items: Array.from({ length: 2800 }, (_, i) => ({ id: i, name: `Item ${i}`, tags: ["new", "sale"], price: { amount: i * 3, currency: "EUR" } })),
    };
    const raw = JSON.stringify(document);
    expect(raw.length).toBeGreaterThan(200 * 1024);
    expect(raw.length).toBeLessThan(PAYLOAD_PREVIEW_BYTES);
    const id = await capture(raw, { "content-type": "application/json" });

    // The server sends the text once, in the loader data, and leaves the rendering to the browser.
    const html = await (await page.request.get(`${t.rehook.url}/events/${id}`)).text();
    expect(html).toContain('data-testid="payload-loading"');
    expect(html.split("Item 2799").length - 1).toBe(1);
    expect(html.length).toBeLessThan(2 * raw.length);

    await openEvent(id);
    const tree = page.getByTestId("payload");
    await tree.locator('[data-pointer="/items"]').waitFor();
    // Only a screenful exists at first: 2,800 items are one closed row.
    expect(await tree.locator(".jt-row").count()).toBeLessThan(20);
    let started = Date.now();
    await inspector().getByRole("button", { name: "Expand all" }).click();
    await tree.locator('[data-pointer="/items/99/price/currency"]').waitFor();
    const expandMs = Date.now() - started;
    // A page of 100 items at a time, even expanded.
    expect(await tree.locator('[data-pointer="/items/100"]').count()).toBe(0);
    // Shown after "Expand all", the next page opens too.
    await tree.getByRole("button", { name: "Show 100 more of 2,700" }).click();
    await tree.locator('[data-pointer="/items/199/price/currency"]').waitFor();
    expect(await tree.locator('[data-pointer="/items/200"]').count()).toBe(0);

    started = Date.now();
    await page.getByTestId("json-search").fill("item 2777");
    await expect.poll(() => page.getByTestId("json-search-count").textContent()).toBe("1 of 1 match");
    await tree.locator('[data-pointer="/items/2777/name"] mark.is-current').waitFor();
    const searchMs = Date.now() - started;
    started = Date.now();
    await viewButton("Pretty").click();
    await expect.poll(async () => (await page.getByTestId("line-numbers").textContent())!.split("\n").length).toBe(JSON.stringify(document, null, 2).split("\n").length);
    const prettyMs = Date.now() - started;
    process.stdout.write(`${(raw.length / 1024).toFixed(0)} KiB JSON: expand all ${expandMs} ms, search ${searchMs} ms, pretty view ${prettyMs} ms\n`);
    expect(expandMs).toBeLessThan(5_000);
    expect(searchMs).toBeLessThan(5_000);
    expect(prettyMs).toBeLessThan(5_000);
    expect(consoleErrors).toEqual([]);
  });

  it("a form body as a table, with Slack's payload= JSON expanded", async () => {
    const interaction = { type: "block_actions", user: { id: "U024BE7LH", username: "ada" }, actions: [{ action_id: "approve", value: "deploy & notify" }] };
    const body = `payload=${encodeURIComponent(JSON.stringify(interaction)).replaceAll("%20", "+")}&token=xoxb%2Dtest&team=T0+1`;
    const id = await capture(body, { "content-type": "application/x-www-form-urlencoded" });
    await openEvent(id);
    expect(await inspector().getAttribute("data-view")).toBe("table");
    const rows = page.getByTestId("form-table-row");
    await expect.poll(() => rows.count()).toBe(3);
    expect(await rows.nth(1).textContent()).toBe("tokenxoxb-test");
    expect(await rows.nth(2).textContent()).toBe("teamT0 1");
    const json = rows.nth(0).getByTestId("form-json");
    expect(await json.locator('[data-pointer="/type"]').textContent()).toContain('"block_actions"');
    expect(await json.locator('[data-pointer="/actions/0/value"]').textContent()).toContain('"deploy & notify"');
    await threeShots("form-slack");
    await viewButton("Raw").click();
    await expect.poll(() => page.getByTestId("payload").textContent()).toBe(body);
    await page.getByRole("button", { name: "Copy payload" }).click();
    await expect.poll(clipboard).toBe(body);
    expect(consoleErrors).toEqual([]);
  });

  it("gzip, deflate and br bodies decoded on the server; a corrupt stream is a note, not an error page", async () => {
    const document = { type: "push", commits: [{ id: "c0ffee", message: "compressed hello" }] };
    const json = JSON.stringify(document);
    const gzip = gzipSync(json);
    const id = await capture(gzip, { "content-type": "application/json", "content-encoding": "gzip" });
    await openEvent(id);
    expect(await page.getByTestId("payload-decoded").textContent()).toContain(`Content-Encoding gzip: showing the body decoded, ${json.length} bytes from ${gzip.length} received.`);
    expect(await inspector().getAttribute("data-view")).toBe("tree");
    expect(await page.getByTestId("payload").locator('[data-pointer="/commits/0/message"]').textContent()).toContain('"compressed hello"');
    await threeShots("gzip");
    await viewButton("As received").click();
    await expect.poll(() => page.getByTestId("payload").getAttribute("data-kind")).toBe("binary");
    expect(await page.getByTestId("payload").textContent()).toMatch(/^00000000 {2}1f 8b 08/);
    await inspector().getByRole("button", { name: "Copy decoded" }).click();
    await expect.poll(clipboard).toBe(json);
    const [file] = await Promise.all([page.waitForEvent("download"), inspector().getByRole("link", { name: "Download raw" }).click()]);
    expect(file.suggestedFilename()).toBe(`event-${id}.json.gz`);
    expect((await readFile((await file.path())!)).equals(gzip)).toBe(true);

    for (const [encoding, bytes] of [
      ["deflate", deflateSync(json)],
      ["br", brotliCompressSync(json)],
    ] as const) {
      await openEvent(await capture(bytes, { "content-type": "application/json", "content-encoding": encoding }));
      expect(await page.getByTestId("payload-decoded").textContent(), encoding).toContain(`Content-Encoding ${encoding}`);
      expect(await page.getByTestId("payload").locator('[data-pointer="/type"]').textContent(), encoding).toContain('"push"');
    }

    const corrupt = Buffer.concat([gzip.subarray(0, 10), Buffer.from("definitely not deflate data"), gzip.subarray(10)]);
    const corruptId = await capture(corrupt, { "content-type": "application/json", "content-encoding": "gzip" });
    const response = await page.goto(`${t.rehook.url}/events/${corruptId}`);
    expect(response!.status()).toBe(200);
    const note = page.getByTestId("payload-decode-error");
    await note.waitFor();
    expect(await note.textContent()).toMatch(/^The body is not valid gzip: .+\. It is shown as received\.$/);
    expect(await inspector().getAttribute("data-view")).toBe("hex");
    await threeShots("gzip-corrupt");
    expect(consoleErrors).toEqual([]);
  });

  it("XML pretty-printed; XML that is not well-formed shown raw", async () => {
    const xml = '<?xml version="1.0" encoding="UTF-8"?><Notification><Type>Payment</Type><Amount currency="EUR">12.50</Amount><Items><Item sku="A1"/><Item sku="B2"/></Items></Notification>';
    await openEvent(await capture(xml, { "content-type": "application/xml" }));
    expect(await inspector().getAttribute("data-view")).toBe("pretty");
    expect(await page.getByTestId("payload-kind").textContent()).toBe("XML");
    await expect
      .poll(() => page.getByTestId("payload").textContent())
      .toBe(
        [
          '<?xml version="1.0" encoding="UTF-8"?>',
          "<Notification>",
          "  <Type>Payment</Type>",
          '  <Amount currency="EUR">12.50</Amount>',
          "  <Items>",
          '    <Item sku="A1"/>',
          '    <Item sku="B2"/>',
          "  </Items>",
          "</Notification>",
        ].join("\n"),
      );
    await threeShots("xml");
    await inspector().getByRole("button", { name: "Copy pretty" }).click();
    await expect.poll(clipboard).toContain("\n  <Type>Payment</Type>\n");

    const bad = "<Notification><Type>Payment</Notification>";
    await openEvent(await capture(bad, { "content-type": "text/xml" }));
    await expect.poll(() => page.getByTestId("payload").textContent()).toBe(bad);
    expect(await inspector().textContent()).toContain("Not well-formed XML, so it is shown as received.");
    expect(consoleErrors).toEqual([]);
  });

  it("multipart parts listed: name, file name, type, size, a preview", async () => {
    const boundary = "----RehookFormBoundaryx8Zq";
    const png = Buffer.from("89504e470d0a1a0a0000000d4948445200000001000000010806000000", "hex");
    const body = Buffer.concat([
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="event"\r\n\r\nrelease.published\r\n`),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="meta"; filename="meta.json"\r\nContent-Type: application/json\r\n\r\n{"tag":"v1.2.0"}\r\n`),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="icon"; filename="icon.png"\r\nContent-Type: image/png\r\n\r\n`),
      png,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    await openEvent(await capture(body, { "content-type": `multipart/form-data; boundary=${boundary}` }));
    expect(await inspector().getAttribute("data-view")).toBe("parts");
    const parts = page.getByTestId("multipart-part");
    await expect.poll(() => parts.count()).toBe(3);
    expect(await parts.nth(0).textContent()).toContain("event");
    expect(await parts.nth(0).textContent()).toContain("release.published");
    expect(await parts.nth(1).textContent()).toMatch(/meta\.json.*application\/json.*16 bytes.*\{"tag":"v1\.2\.0"\}/);
    expect(await parts.nth(2).textContent()).toMatch(/icon\.png.*image\/png.*29 bytes.*Binary content/);
    await threeShots("multipart");
    // Binary inside: no raw text, the whole body as hex.
    await viewButton("Hex").click();
    await expect.poll(() => page.getByTestId("payload").textContent()).toMatch(/^00000000 {2}2d 2d 2d 2d/);
    expect(consoleErrors).toEqual([]);
  });

  it("binary as a hex dump with offsets", async () => {
    const bytes = Buffer.from(Array.from({ length: 300 }, (_, i) => (i * 37) % 256));
    await openEvent(await capture(bytes, { "content-type": "application/octet-stream" }));
    expect(await inspector().getAttribute("data-view")).toBe("hex");
    const dump = (await page.getByTestId("payload").textContent())!.split("\n");
    expect(dump).toHaveLength(19);
    expect(dump[0]).toBe("00000000  00 25 4a 6f 94 b9 de 03  28 4d 72 97 bc e1 06 2b  .%Jo....(Mr....+");
    expect(dump[18]!.startsWith("00000120  ")).toBe(true);
    await threeShots("binary");
    await page.getByRole("button", { name: "Copy hex dump" }).click();
    await expect.poll(clipboard).toBe(dump.join("\n"));
    expect(consoleErrors).toEqual([]);
  });
});
