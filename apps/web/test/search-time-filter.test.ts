import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_SEARCH_WINDOW_MS } from "@rehook/core";
import { DashboardClient } from "./dashboard-client.js";
import { startTestServer, type TestServer } from "./test-server.js";

// Activity's Time menu, server-rendered: while searching without a range it shows the window
// the search reads (the last 24 hours), not "Any time".

let t: TestServer;
let owner: DashboardClient;

beforeAll(async () => {
  t = await startTestServer();
  owner = new DashboardClient(t.rehook.url);
  expect((await owner.postForm("/signup", { email: "time-filter@example.com", password: "a long enough password" })).status).toBe(303);
});
afterAll(() => t.close());

/** The Time menu of the Activity page at this URL: its options' labels and values, and the one selected. */
async function timeMenu(path: string): Promise<{ options: Array<[label: string, value: string]>; selected: string | undefined }> {
  const response = await owner.get(path);
  expect(response.status).toBe(200);
  const html = await response.text();
  const select = /<select[^>]*id="filter-since"[^>]*>(.*?)<\/select>/s.exec(html)?.[1];
  if (select === undefined) throw new Error("the page has no Time menu");
  const options = [...select.matchAll(/<option([^>]*)>([^<]*)<\/option>/g)].map((match) => ({ attributes: match[1]!, label: match[2]! }));
  return {
    options: options.map(({ attributes, label }) => [label, /value="([^"]*)"/.exec(attributes)?.[1] ?? ""]),
    selected: options.find(({ attributes }) => /\sselected(=""|\s|$)/.test(attributes))?.label,
  };
}

describe("Activity's Time menu", () => {
  it("shows the 24-hour window a search reads instead of Any time", async () => {
    const searching = await timeMenu("/events?q=invoice");
    expect(searching.selected).toBe("Last 24 hours");
    expect(searching.options).toEqual([
      ["Last hour", "1h"],
      ["Last 24 hours", ""],
      ["Last 7 days", "7d"],
      ["Last 30 days", "30d"],
    ]);
  });

  it("shows Any time without a search, and a chosen range with one", async () => {
    const browsing = await timeMenu("/events");
    expect(browsing.selected).toBe("Any time");
    expect(browsing.options[0]).toEqual(["Any time", ""]);

    const ranged = await timeMenu("/events?q=invoice&since=7d");
    expect(ranged.selected).toBe("Last 7 days");
    expect(ranged.options.map(([label]) => label)).not.toContain("Any time");
    expect((await timeMenu("/events?q=invoice&since=24h")).selected).toBe("Last 24 hours");
  });

  it("names the window the server searches (list-filter's SEARCH_WINDOW is its 24h range)", () => {
    expect(DEFAULT_SEARCH_WINDOW_MS).toBe(24 * 60 * 60 * 1000);
  });
});
