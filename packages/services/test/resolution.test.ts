import { afterAll, beforeAll, describe, expect } from "vitest";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import {
  auditContracts,
  createDestination,
  createEndpoint,
  getEvent,
  listEvents,
  replayEventAttempts,
  resolveDelivery,
  retryEvent,
  runContract,
  type Services,
} from "@rehook/services";
import { capture, expectRefused, MISSING_ID, test } from "./support.js";

// Resolution that means something: a failed delivery is resolved only by a later attempt to
// that destination that delivered (a replay targeting it), or by a member with a note. A
// replay to any other URL resolves nothing. A failed event counts as resolved when every
// failed delivery of it is; the list's "hide resolved" follows. Its status stays failed.

let sink: Sink;
/** Paths that answer 500 until a test mends them. */
const failing = new Set<string>();
beforeAll(async () => {
  sink = await startSink((req, res) => {
    res.writeHead(failing.has(req.url ?? "") ? 500 : 200);
    res.end("ok");
  });
});
afterAll(() => sink.close());

const url = (path: string) => `http://127.0.0.1:${sink.port}${path}`;

/** An endpoint with a working destination and a failing one, and an event delivered to the first and failed at the second. */
async function halfFailed(services: Services, teamId: string, tag: string) {
  failing.add(`/${tag}/down`);
  const endpoint = await createEndpoint(services, { teamId, name: tag, destinationUrl: url(`/${tag}/up`) });
  const down = await createDestination(services, { teamId, endpointId: endpoint.id, name: "Down", url: url(`/${tag}/down`) });
  const eventId = await capture(services, endpoint.slug, `{"tag":"${tag}"}`);
  await waitFor(async () => {
    const event = await getEvent(services, { teamId, eventId });
    return event.status === "failed" && event.deliveries.every((delivery) => delivery.status !== "pending");
  }, "the event to fail at Down");
  return { endpoint, down, eventId };
}

const resolvedOf = async (services: Services, teamId: string, eventId: string) => (await getEvent(services, { teamId, eventId })).resolved;
const hidden = async (services: Services, teamId: string, endpointId: string) =>
  !(await listEvents(services, { teamId, endpointId, status: "failed", unresolved: true })).events.length;

describe("resolution", { concurrent: true }, () => {
  test("a successful replay to a custom URL does not resolve a failed event, nor hide it", async ({ services, user }) => {
    const { endpoint, eventId } = await halfFailed(services, user.teamId, "custom");
    const outcome = await replayEventAttempts(services, { teamId: user.teamId, userId: user.id, eventId, environment: "custom", customUrl: url("/scratch") });
    expect(outcome.attempts).toMatchObject([{ status: "delivered", destinationId: null }]);
    expect(outcome.eventResolved).toBe(false);
    expect(await resolvedOf(services, user.teamId, eventId)).toBe(false);
    expect(await hidden(services, user.teamId, endpoint.id)).toBe(false);
    // A replay to the destination that delivered already resolves nothing either.
    const up = (await getEvent(services, { teamId: user.teamId, eventId })).deliveries.find((delivery) => delivery.status === "delivered")!;
    await replayEventAttempts(services, { teamId: user.teamId, userId: user.id, eventId, destinationId: up.destinationId });
    expect(await resolvedOf(services, user.teamId, eventId)).toBe(false);
  });

  test("a delivered replay to the failed destination resolves its delivery, by that replay, and then the event", async ({ services, user }) => {
    const { endpoint, down, eventId } = await halfFailed(services, user.teamId, "mended");
    failing.delete("/mended/down");
    const outcome = await replayEventAttempts(services, { teamId: user.teamId, userId: user.id, eventId, environment: "failed" });
    expect(outcome.attempts).toMatchObject([{ destinationId: down.id, status: "delivered" }]);
    expect(outcome.eventResolved).toBe(true);
    const event = await getEvent(services, { teamId: user.teamId, eventId });
    expect(event).toMatchObject({ status: "failed", resolved: true });
    expect(event.deliveries.find((delivery) => delivery.destinationId === down.id)!.resolution).toEqual({
      at: expect.any(Date),
      replayId: outcome.attempts[0]!.id,
      userId: null,
      userEmail: null,
      note: null,
    });
    expect(await hidden(services, user.teamId, endpoint.id)).toBe(true);
    // The unfiltered list still shows it, flagged.
    const page = await listEvents(services, { teamId: user.teamId, endpointId: endpoint.id });
    expect(page.events.map((row) => [row.id, row.status, row.resolved])).toEqual([[eventId, "failed", true]]);
  });

  test("a member marks a failed delivery resolved with a note: audited; refused when not failed or resolved already", async ({ services, user, other }) => {
    const { endpoint, down, eventId } = await halfFailed(services, user.teamId, "marked");
    const by = user.actor;
    await expectRefused(resolveDelivery(services, { teamId: user.teamId, userId: user.id, by, eventId, destinationId: down.id, note: "  " }), "validation_failed", /note/);
    // The live feeds hear of it (its status unchanged), so their rows read it again.
    const heard: string[] = [];
    const unsubscribe = services.bus.subscribe((message) => {
      if (message.type === "event.status" && message.id === eventId) heard.push(message.status);
    });
    const resolved = await resolveDelivery(services, { teamId: user.teamId, userId: user.id, by, eventId, destinationId: down.id, note: "Fixed the order by hand in the billing admin" });
    expect(resolved).toMatchObject({ eventId, destinationId: down.id, resolvedByUserId: user.id, note: "Fixed the order by hand in the billing admin", eventResolved: true });
    await waitFor(() => heard.length > 0, "the resolution to be announced");
    unsubscribe();
    expect(heard).toEqual(["failed"]);
    const delivery = (await getEvent(services, { teamId: user.teamId, eventId })).deliveries.find((each) => each.destinationId === down.id)!;
    expect(delivery).toMatchObject({ status: "failed", resolution: { replayId: null, userId: user.id, userEmail: user.email, note: "Fixed the order by hand in the billing admin" } });
    expect(await hidden(services, user.teamId, endpoint.id)).toBe(true);

    await expectRefused(resolveDelivery(services, { teamId: user.teamId, userId: user.id, by, eventId, destinationId: down.id, note: "again" }), "conflict", /resolved already/);
    const up = (await getEvent(services, { teamId: user.teamId, eventId })).deliveries.find((each) => each.status === "delivered")!;
    await expectRefused(resolveDelivery(services, { teamId: user.teamId, userId: user.id, by, eventId, destinationId: up.destinationId!, note: "n" }), "conflict", /is delivered, not failed/);
    await expectRefused(resolveDelivery(services, { teamId: other.teamId, userId: other.id, eventId, destinationId: down.id, note: "n" }), "not_found");
    await expectRefused(resolveDelivery(services, { teamId: user.teamId, userId: user.id, eventId, destinationId: MISSING_ID, note: "n" }), "not_found");

    const log = await runContract(auditContracts.listAuditLogContract, services, by, auditContracts.listAuditLogContract.input.parse({ action: "delivery.resolve" }));
    expect(log.entries).toMatchObject([
      { action: "delivery.resolve", actor: { id: user.id }, target: { type: "event", id: eventId, name: "Down" }, changes: { destination_id: down.id, note: "Fixed the order by hand in the billing admin" } },
    ]);
  });

  test("every failed delivery must be resolved: one of two is not enough", async ({ services, user }) => {
    failing.add("/two/a");
    failing.add("/two/b");
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "two down", destinationUrl: url("/two/a") });
    const b = await createDestination(services, { teamId: user.teamId, endpointId: endpoint.id, name: "B", url: url("/two/b") });
    const eventId = await capture(services, endpoint.slug, "{}");
    await waitFor(async () => (await getEvent(services, { teamId: user.teamId, eventId })).deliveries.every((delivery) => delivery.status === "failed"), "both deliveries to fail");
    failing.delete("/two/b");
    await replayEventAttempts(services, { teamId: user.teamId, userId: user.id, eventId, destinationId: b.id });
    expect(await resolvedOf(services, user.teamId, eventId)).toBe(false);
    expect(await hidden(services, user.teamId, endpoint.id)).toBe(false);
  });

  test("a retry sends a resolved delivery again: its resolution goes, and a new failure is unresolved", async ({ services, user }) => {
    const { down, eventId } = await halfFailed(services, user.teamId, "retried");
    await resolveDelivery(services, { teamId: user.teamId, userId: user.id, eventId, destinationId: down.id, note: "handled" });
    expect(await resolvedOf(services, user.teamId, eventId)).toBe(true);
    await retryEvent(services, { teamId: user.teamId, eventId });
    await waitFor(async () => {
      const event = await getEvent(services, { teamId: user.teamId, eventId });
      return event.status === "failed" && event.deliveries.find((delivery) => delivery.destinationId === down.id)!.attempts === 2;
    }, "the retry to fail again");
    const event = await getEvent(services, { teamId: user.teamId, eventId });
    expect(event.resolved).toBe(false);
    expect(event.deliveries.find((delivery) => delivery.destinationId === down.id)!.resolution).toBeNull();
  });
});
