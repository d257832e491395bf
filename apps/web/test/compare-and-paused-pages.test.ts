import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDestination, createEndpoint } from "@rehook/services";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { DashboardClient } from "./dashboard-client.js";
import { head, rawRequest } from "./raw-http.js";
import { startTestServer, type TestServer } from "./test-server.js";

// Two pages as the server renders them: Compare names the URL a delivery actually went to
// (sub-path and query included) and marks an edited replay; a waiting event held by a paused
// destination names that destination (not the endpoint) instead of a due time.

let t: TestServer;
let ok: Sink;
let down: Sink;
let client: DashboardClient;
/** The signed-up user's personal team: the one their dashboard session works in. */
let teamId: string;

beforeAll(async () => {
  ok = await startSink((_req, res) => res.end("ok"));
  down = await startSink((_req, res) => {
    res.statusCode = 500;
    res.end("down");
  });
  t = await startTestServer({ ALLOW_PRIVATE_DESTINATIONS: "true" });
  client = new DashboardClient(t.rehook.url);
  expect((await client.postForm("/signup", { email: "pages@example.com", password: "a long enough password" })).status).toBe(303);
  teamId = (await t.db.query<{ id: string }>("select teams.id from teams join users on users.id = teams.personal_of_id where users.email = $1", ["pages@example.com"]))[0]!.id;
});
afterAll(async () => {
  await t?.close();
  await ok?.close();
  await down?.close();
});

/** Captures a JSON body at the capture URL plus `rest` (a sub-path and query), answering the event's id. */
async function capture(slug: string, rest = ""): Promise<string> {
  const body = '{"type":"order.created"}';
  const response = await rawRequest(t.rehook.url, [head("POST", `/api/webhook/${slug}${rest}`, [["Content-Type", "application/json"], ["Content-Length", String(body.length)]]), body]);
  expect(response.status).toBe(200);
  return JSON.parse(response.body).eventId as string;
}

const statusOf = async (id: string) => (await t.db.query<{ status: string }>("select status from events where id = $1", [id]))[0]?.status;

/** The text of the element with this test id in a page's HTML (one line, tags dropped). */
function testIdText(html: string, testId: string): string | null {
  const match = new RegExp(`data-testid="${testId}"[^>]*>([\\s\\S]*?)</span>`).exec(html);
  return match ? match[1]!.replace(/<[^>]+>/g, "").trim() : null;
}

describe("the compare page", () => {
  it("shows where the delivery went with its sub-path and query, and marks the edited replay", async () => {
    const endpoint = await createEndpoint(t.rehook.services, { teamId, name: "Orders", destinationUrl: `http://127.0.0.1:${ok.port}/hook` });
    const id = await capture(endpoint.slug, "/orders/created?src=shop");
    await waitFor(async () => (await statusOf(id)) === "delivered", "the delivery");
    expect(ok.received.at(-1)!.url).toBe("/hook/orders/created?src=shop");
    const replayed = await client.mutate("replays.create", { eventId: id, environment: "original", overrides: { body: '{"edited":true}' } });
    expect(replayed.status).toBe(200);

    const page = await client.get(`/events/${id}/compare`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(testIdText(html, "compare-left-destination")).toBe(`http://127.0.0.1:${ok.port}/hook/orders/created?src=shop`);
    expect(testIdText(html, "compare-right-destination")).toBe(`http://127.0.0.1:${ok.port}/hook/orders/created?src=shop`);
    // The right side (the newest response, the edited replay) carries the Edited badge, and its picker option says so.
    expect(html.match(/data-testid="replay-edited"/g)).toHaveLength(1);
    expect(html).toMatch(/<option[^>]*>Replay \(original\) · [^<·]+ · edited · /);
    expect(html).toMatch(/<option[^>]*>Original delivery · 127\.0\.0\.1 · [^<]*http:\/\/127\.0\.0\.1:\d+\/hook\/orders\/created\?src=shop<\/option>/);
  });
});

describe("a waiting event held by a paused destination", () => {
  it("names the destination to resume, not the endpoint, and no due time", async () => {
    const endpoint = await createEndpoint(t.rehook.services, {
      teamId,
      name: "Fragile",
      destinationUrl: `http://127.0.0.1:${down.port}/hook`,
      retryPolicy: { maxAttempts: 3, initialDelayMs: 60_000, maxDelayMs: 60_000 },
      pauseAfterFailures: 1,
    });
    const id = await capture(endpoint.slug);
    // The first attempt fails: forwarding pauses, and the event waits for its next attempt.
    await waitFor(
      async () => (await t.db.query<{ paused: boolean }>("select forwarding_paused_at is not null as paused from destinations where endpoint_id = $1 and position = 0", [endpoint.id]))[0]?.paused === true,
      "forwarding paused",
    );
    expect(await statusOf(id)).toBe("pending");

    const html = await (await client.get(`/events/${id}`)).text();
    expect(testIdText(html, "paused-header")).toBe("Paused: sent once 127.0.0.1 is resumed");
    expect(html).not.toContain("endpoint is resumed");
    expect(html).not.toContain("Next attempt");
    expect(html).not.toContain("Scheduled");
  });

  it("with several destinations, names the paused one in the header while the other delivered", async () => {
    const endpoint = await createEndpoint(t.rehook.services, { teamId, name: "Fan-out", destinationUrl: `http://127.0.0.1:${ok.port}/main` });
    await createDestination(t.rehook.services, { teamId, endpointId: endpoint.id, name: "Ledger", url: `http://127.0.0.1:${down.port}/ledger`, pauseAfterFailures: 1 });
    const tripped = await capture(endpoint.slug);
    await waitFor(async () => (await statusOf(tripped)) === "failed", "the ledger's failure to trip its breaker");
    const held = await capture(endpoint.slug);
    await waitFor(
      async () => (await t.db.query("select 1 from deliveries where event_id = $1 and status = 'delivered'", [held])).length === 1,
      "the main destination's delivery",
    );

    const html = await (await client.get(`/events/${held}`)).text();
    expect(testIdText(html, "paused-header")).toBe("Paused: sent once Ledger is resumed");
    expect(html).toContain('data-testid="event-paused"');
    expect(html).not.toContain("endpoint is resumed");
  });
});
