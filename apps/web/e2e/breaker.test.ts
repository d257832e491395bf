import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import type { Sink } from "@rehook/vitest-config/sink";
import type { TestServer } from "../test/test-server.js";
import { captureEvent, createEndpoint, openDashboard, signUp, type Dashboard } from "./fixture.js";

// The destination card's breaker in a real browser (issue 42): set to pause after 3 failed
// attempts, a destination that answers 500 to a burst of events gets 3 requests, and its card
// reads one count: the same number in the pause's reason and nowhere a second one. A resume
// sends one probe; while the destination still fails the card reads 4, the API and the
// database too.

let t: TestServer;
let page: Page;
let consoleErrors: string[];
let shot: Dashboard["shot"];
/** Answers 500. */
let down: Sink;

beforeAll(async () => {
  const dashboard = await openDashboard({
    sinks: {
      down: (_req, res) => {
        res.statusCode = 500;
        res.end("down");
      },
    },
    env: () => ({ FORWARD_TIMEOUT_MS: "2000" }),
  });
  ({ t, page, consoleErrors, shot } = dashboard);
  ({ down } = dashboard.sinks);
  return dashboard.close;
});

const settle = { timeout: 15_000 };
const card = () => page.getByRole("region", { name: /^Destinations/ }).getByTestId("destination");
const stored = async (endpointId: string) =>
  (
    await t.db.query<{ consecutive_failures: number; paused_reason: string | null }>(
      "select consecutive_failures, paused_reason from destinations where endpoint_id = $1",
      [endpointId],
    )
  )[0]!;
/** Nothing leased for the endpoint's destination any more: what reached it is all that will until a resume. */
const quiet = async (endpointId: string) =>
  (
    await t.db.query<{ n: number }>(
      `select (select count(*) from deliveries where endpoint_id = $1 and status = 'pending' and lease_expires_at > now())::int
            + (select count(*) from events where endpoint_id = $1 and fast_path_destination_id is not null)::int as n`,
      [endpointId],
    )
  )[0]!.n === 0;

describe("the destination card's circuit breaker", { timeout: 120_000 }, () => {
  it("pauses after 3 failed attempts with 3 requests, and says 3 once; a resume probes once and says 4", async () => {
    await signUp(page, t.rehook.url, "breaker@example.com");
    const endpoint = await createEndpoint(page, "Breaker", `http://127.0.0.1:${down.port}/in`);
    await page.goto(`${t.rehook.url}/endpoints/${endpoint.id}`);
    const retries = page.getByRole("region", { name: "Retries" });
    await retries.getByLabel("Pause forwarding after repeated failures").check();
    await retries.getByLabel("Consecutive failed attempts").fill("3");
    await retries.getByRole("button", { name: "Save retries" }).click();
    await expect.poll(() => retries.getByRole("status").allTextContents(), settle).toContainEqual(expect.stringContaining("Retries saved"));

    // One failure, then a burst of ten: one request at a time after the failure, three in all.
    const first = await captureEvent(t.rehook.url, endpoint.slug, '{"n":0}');
    await expect.poll(async () => (await t.db.query<{ status: string }>("select status from events where id = $1", [first]))[0]?.status, settle).toBe("failed");
    await Promise.all(Array.from({ length: 10 }, (_, n) => captureEvent(t.rehook.url, endpoint.slug, JSON.stringify({ n: n + 1 }))));
    await expect.poll(async () => (await stored(endpoint.id)).paused_reason, settle).not.toBeNull();
    await expect.poll(() => quiet(endpoint.id), settle).toBe(true);
    expect(down.received).toHaveLength(3);

    const reason = "3 consecutive failed attempts (last: destination answered 500)";
    expect(await stored(endpoint.id)).toEqual({ consecutive_failures: 3, paused_reason: reason });
    await page.reload();
    await expect.poll(() => card().getAttribute("data-state"), settle).toBe("paused");
    expect(await card().getByTestId("destination-paused").textContent()).toMatch(new RegExp(`^Paused since .+: ${reason.replace(/[()]/g, "\\$&")}\\. Its deliveries wait until you resume it: one goes first, and the rest follow once it is delivered\\.$`));
    // One count on the card: no second figure beside the reason.
    const text = (await card().textContent()) ?? "";
    expect(text.match(/\d+ consecutive failed attempts?/g)).toEqual(["3 consecutive failed attempts"]);
    expect(text).not.toContain("in a row so far");
    expect(await card().getByTestId("destination-breaker").count()).toBe(0);
    await shot("breaker-paused");

    // Resumed while it still fails: one probe, paused again, the count one higher.
    await card().getByRole("button", { name: "Resume" }).click();
    await expect.poll(() => down.received.length, settle).toBe(4);
    await expect.poll(async () => (await stored(endpoint.id)).consecutive_failures, settle).toBe(4);
    await expect.poll(() => quiet(endpoint.id), settle).toBe(true);
    expect(down.received).toHaveLength(4);
    await page.reload();
    await expect.poll(() => card().getAttribute("data-state"), settle).toBe("paused");
    const again = (await card().textContent()) ?? "";
    expect(again.match(/\d+ consecutive failed attempts?/g)).toEqual(["4 consecutive failed attempts"]);
    expect(consoleErrors).toEqual([]);
  });
});
