import { afterAll, beforeAll, describe, expect } from "vitest";
import { eventCountMismatches } from "@rehook/vitest-config/event-counts";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import {
  createDestination,
  createEndpoint,
  deleteDestination,
  getEndpoint,
  getEvent,
  listDestinations,
  retryEvent,
  testFilter,
  updateDestination,
  updateEndpoint,
} from "@rehook/services";
import { capture, expectRefused, MISSING_ID, test } from "./support.js";

// Routing on the running service graph: an endpoint fans each event out to its destinations
// whose filters let it through, each delivery on its own; the event's status sums them up.

let sink: Sink;
let failing = new Set<string>();
/** Bodies sent to /flaky that have failed once already: each body fails its first attempt only. */
const failedOnce = new Set<string>();
/** When each request to /paced arrived (performance.now()). */
const pacedArrivals: number[] = [];
beforeAll(async () => {
  sink = await startSink((req, res, body) => {
    if (req.url === "/paced") pacedArrivals.push(performance.now());
    const flakyFirst = req.url === "/flaky" && !failedOnce.has(body.toString());
    if (flakyFirst) failedOnce.add(body.toString());
    res.writeHead(failing.has(req.url ?? "") || flakyFirst ? 500 : 200);
    res.end("ok");
  });
});
afterAll(() => sink.close());

const url = (path: string) => `http://127.0.0.1:${sink.port}${path}`;
const arrivals = (path: string) => sink.received.filter((r) => r.url === path);

describe("fan-out with filters", () => {
  test("sends each event to every destination its filter lets through, and sums the outcomes up on the event", async ({ services, user, database }) => {
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "Stripe", destinationUrl: url("/warehouse") });
    const scope = { teamId: user.teamId, endpointId: endpoint.id };
    const billing = await createDestination(services, { ...scope, name: "Billing", url: url("/billing"), filter: { "body.type": { $startsWith: "invoice." } } });
    const crm = await createDestination(services, { ...scope, name: "CRM", url: url("/crm"), filter: { "body.type": { $startsWith: "customer." } } });
    expect((await listDestinations(services, scope)).map((d) => d.name)).toEqual(["127.0.0.1", "Billing", "CRM"]);

    const invoice = await capture(services, endpoint.slug, '{"type":"invoice.paid"}');
    const customer = await capture(services, endpoint.slug, '{"type":"customer.created"}');
    const other = await capture(services, endpoint.slug, '{"type":"charge.failed"}');
    for (const id of [invoice, customer, other]) await waitFor(async () => (await getEvent(services, { teamId: user.teamId, eventId: id })).status === "delivered", "each event to deliver");

    expect(arrivals("/warehouse")).toHaveLength(3);
    expect(arrivals("/billing").map((r) => r.body.toString())).toEqual(['{"type":"invoice.paid"}']);
    expect(arrivals("/crm").map((r) => r.body.toString())).toEqual(['{"type":"customer.created"}']);

    const view = await getEvent(services, { teamId: user.teamId, eventId: invoice });
    expect(view.deliveries.map((d) => [d.name, d.status, d.attempts])).toEqual([
      ["127.0.0.1", "delivered", 1],
      ["Billing", "delivered", 1],
      ["CRM", "filtered", 0],
    ]);
    expect(new Set(view.attempts.map((a) => a.destinationId))).toEqual(new Set([view.deliveries[0]!.destinationId, billing.id]));
    expect(crm.filter).toEqual({ "body.type": { $startsWith: "customer." } });
    expect(await eventCountMismatches(database)).toEqual([]);
  });

  test("fails the event once any destination finally fails, and retry re-sends to the failed ones only", async ({ services, user, database }) => {
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "Two", destinationUrl: url("/ok") });
    await createDestination(services, { teamId: user.teamId, endpointId: endpoint.id, name: "Broken", url: url("/broken") });
    failing.add("/broken");
    const id = await capture(services, endpoint.slug, "{}");
    await waitFor(async () => (await getEvent(services, { teamId: user.teamId, eventId: id })).status === "failed", "the event to fail");
    await waitFor(async () => (await getEvent(services, { teamId: user.teamId, eventId: id })).deliveries.every((d) => d.status !== "pending"), "both deliveries to finish");
    expect((await getEvent(services, { teamId: user.teamId, eventId: id })).deliveries.map((d) => d.status)).toEqual(["delivered", "failed"]);
    expect((await getEndpoint(services, { teamId: user.teamId, endpoint: { id: endpoint.id } })).failedCount).toBe(1);

    failing = new Set();
    const okBefore = arrivals("/ok").length;
    await retryEvent(services, { teamId: user.teamId, eventId: id });
    await waitFor(async () => (await getEvent(services, { teamId: user.teamId, eventId: id })).status === "delivered", "the retry to deliver");
    expect(arrivals("/ok")).toHaveLength(okBefore);
    expect(arrivals("/broken")).toHaveLength(2);
    expect(await getEndpoint(services, { teamId: user.teamId, endpoint: { id: endpoint.id } })).toMatchObject({ failedCount: 0, deliveredCount: 1 });
    expect(await eventCountMismatches(database)).toEqual([]);
  });

  test("keeps destination_url as the first destination: it reads, changes and removes it", async ({ services, user }) => {
    // A retry policy is the first destination's: without one it is refused rather than dropped.
    await expectRefused(
      createEndpoint(services, { teamId: user.teamId, name: "Compat", retryPolicy: { maxAttempts: 2, initialDelayMs: 1000, maxDelayMs: 1000 } }),
      "validation_failed",
      /retry_policy applies to the endpoint's destination/,
    );
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "Compat" });
    expect(endpoint.destinationUrl).toBeNull();
    const scope = { teamId: user.teamId, endpointId: endpoint.id };
    const first = await updateEndpoint(services, { teamId: user.teamId, endpoint: { id: endpoint.id }, changes: { destinationUrl: url("/first"), pauseAfterFailures: 5 } });
    expect(first).toMatchObject({ destinationUrl: url("/first"), pauseAfterFailures: 5, destinationCount: 1 });
    await createDestination(services, { ...scope, url: url("/second") });
    const changed = await updateEndpoint(services, { teamId: user.teamId, endpoint: { id: endpoint.id }, changes: { destinationUrl: url("/first-moved") } });
    expect(changed).toMatchObject({ destinationUrl: url("/first-moved"), destinationCount: 2 });
    expect((await listDestinations(services, scope)).map((d) => d.url)).toEqual([url("/first-moved"), url("/second")]);
    const cleared = await updateEndpoint(services, { teamId: user.teamId, endpoint: { id: endpoint.id }, changes: { destinationUrl: null } });
    expect(cleared).toMatchObject({ destinationUrl: url("/second"), destinationCount: 1 });
    const none = await updateEndpoint(services, { teamId: user.teamId, endpoint: { id: endpoint.id }, changes: { destinationUrl: null } });
    expect(none).toMatchObject({ destinationUrl: null, destinationCount: 0 });
    await expectRefused(
      updateEndpoint(services, { teamId: user.teamId, endpoint: { id: endpoint.id }, changes: { pauseAfterFailures: 3 } }),
      "validation_failed",
      /pause_after_failures applies/,
    );
  });

  test("holds a disabled destination's events back, and cancels a removed destination's pending deliveries", async ({ services, user, database }) => {
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "Removed" });
    const scope = { teamId: user.teamId, endpointId: endpoint.id };
    const held = await createDestination(services, { ...scope, url: url("/never"), enabled: false });
    // Disabled: it gets nothing, so the event was only captured.
    const skipped = await capture(services, endpoint.slug, "{}");
    expect((await getEvent(services, { teamId: user.teamId, eventId: skipped })).status).toBe("captured");
    // Enabled but paused by its breaker: events wait for it as pending.
    await updateDestination(services, { ...scope, destinationId: held.id, changes: { enabled: true } });
    await database.query("update destinations set forwarding_paused_at = now(), paused_reason = 'test' where id = $1", [held.id]);
    const pending = await capture(services, endpoint.slug, "{}");
    expect((await getEvent(services, { teamId: user.teamId, eventId: pending })).status).toBe("pending");
    expect((await getEndpoint(services, { teamId: user.teamId, endpoint: { id: endpoint.id } })).forwardingPaused).toBe(true);

    await deleteDestination(services, { ...scope, destinationId: held.id });
    const view = await getEvent(services, { teamId: user.teamId, eventId: pending });
    expect(view.status).toBe("captured");
    expect(view.deliveries).toEqual([]);
    expect(arrivals("/never")).toHaveLength(0);
    expect(await eventCountMismatches(database)).toEqual([]);
    await expectRefused(deleteDestination(services, { ...scope, destinationId: held.id }), "not_found");
  });

  test("refuses bad settings with the field's message, more than 20 destinations, and another team's endpoint", async ({ services, user, other }) => {
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "Limits" });
    const scope = { teamId: user.teamId, endpointId: endpoint.id };
    await expectRefused(createDestination(services, { ...scope, url: url("/x"), filter: { "body.a": { $regex: "." } } }), "validation_failed", /\$regex/);
    await expectRefused(createDestination(services, { ...scope, url: url("/x"), rateLimitPerSecond: 0 }), "validation_failed", /rate_limit_per_second/);
    await expectRefused(createDestination(services, { ...scope, url: "ftp://example.com" }), "validation_failed", /destination URL refused/);
    for (let i = 0; i < 20; i += 1) await createDestination(services, { ...scope, url: url(`/d${i}`) });
    await expectRefused(createDestination(services, { ...scope, url: url("/d20") }), "conflict", /at most 20 destinations/);
    await expectRefused(listDestinations(services, { teamId: other.teamId, endpointId: endpoint.id }), "not_found");
    await expectRefused(createDestination(services, { teamId: other.teamId, endpointId: endpoint.id, url: url("/x") }), "not_found");
    await expectRefused(updateDestination(services, { ...scope, destinationId: MISSING_ID, changes: { name: "x" } }), "not_found");
  });

  test("tests a filter against a stored event without saving or sending anything", async ({ services, user }) => {
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "Tester" });
    const id = await capture(services, endpoint.slug, '{"amount":250,"items":[{"sku":"A"}]}', [["Content-Type", "application/json"], ["X-Kind", "order"]]);
    const run = (filter: unknown) => testFilter(services, { teamId: user.teamId, eventId: id, filter });
    expect(await run({ "body.amount": { $gt: 100 }, "headers.x-kind": "order" })).toEqual({ matches: true, workBudgetExceeded: false });
    expect(await run({ "body.items.sku": "B" })).toEqual({ matches: false, workBudgetExceeded: false });
    expect(await run({ $or: [{ method: "GET" }, { "body.items.0.sku": "A" }] })).toEqual({ matches: true, workBudgetExceeded: false });
    await expectRefused(run({ $where: "1" }), "validation_failed");
  });

  test("tests a filter with a capture's work budget: one that needs more is cut short and does not match", async ({ services, user }) => {
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "Budget" });
    const items = Array.from({ length: 50_000 }, (_, i) => ({ q: i }));
    const id = await capture(services, endpoint.slug, JSON.stringify({ items }), [["Content-Type", "application/json"]]);
    const run = (filter: unknown) => testFilter(services, { teamId: user.teamId, eventId: id, filter });
    expect(await run({ "body.items.q": 49_999 })).toEqual({ matches: true, workBudgetExceeded: false });
    // 60 conditions that each walk all 50,000 items: three million units, past the budget.
    const heavy = { $or: Array.from({ length: 60 }, (_, i) => ({ "body.items.q": -1 - i })) };
    expect(await run(heavy)).toEqual({ matches: false, workBudgetExceeded: true });
  });

  test("delivers an ordered destination's events one at a time in capture order, each after the one before succeeded on its retry", async ({ services, user }) => {
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "Ordered" });
    await createDestination(services, {
      teamId: user.teamId,
      endpointId: endpoint.id,
      url: url("/flaky"),
      ordered: true,
      retryPolicy: { maxAttempts: 3, initialDelayMs: 100, maxDelayMs: 100 },
    });
    const ids: string[] = [];
    for (let n = 1; n <= 5; n += 1) ids.push(await capture(services, endpoint.slug, `{"n":${n}}`));
    for (const id of ids) await waitFor(async () => (await getEvent(services, { teamId: user.teamId, eventId: id })).status === "delivered", "every event to deliver", 30_000);

    // Every event failed once and then succeeded, and the destination saw them strictly in turn.
    const seen = arrivals("/flaky").map((r) => JSON.parse(r.body.toString()).n as number);
    expect(seen).toEqual([1, 1, 2, 2, 3, 3, 4, 4, 5, 5]);
  });
});

describe("rate limits", () => {
  test("starts a rate-limited destination's deliveries 1/rate apart, however fast they were captured", async ({ services, user }) => {
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "Paced" });
    await createDestination(services, { teamId: user.teamId, endpointId: endpoint.id, url: url("/paced"), rateLimitPerSecond: 4 });
    const ids: string[] = [];
    for (let n = 1; n <= 5; n += 1) ids.push(await capture(services, endpoint.slug, `{"n":${n}}`));
    for (const id of ids) await waitFor(async () => (await getEvent(services, { teamId: user.teamId, eventId: id })).status === "delivered", "every event to deliver", 30_000);

    // Five starts 250 ms apart span a second (less the first start's lateness); unpaced, they would arrive together.
    expect(pacedArrivals).toHaveLength(5);
    expect(pacedArrivals.at(-1)! - pacedArrivals[0]!).toBeGreaterThanOrEqual(750);
  });
});
