import { afterAll, beforeAll, describe, expect } from "vitest";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { createDestination, createEndpoint, getEvent, listEvents, replayEventAttempts, type Services } from "@rehook/services";
import { capture, expectRefused, test } from "./support.js";

// Replays on a fanned-out endpoint, as the issue tried it: Billing takes invoices, CI takes
// GitHub pushes, Broken takes everything and answers 500. A replay goes to a destination by
// id, to every destination the event matched, or to its failed deliveries only; "original"
// is the event's one destination, and a question when it went to several. Each attempt
// records the destination it reached.

let sink: Sink;
beforeAll(async () => {
  sink = await startSink((req, res) => {
    // Every Broken answers 500.
    res.writeHead(req.url?.split("?")[0]?.endsWith("/broken") ? 500 : 200);
    res.end("ok");
  });
});
afterAll(() => sink.close());

const url = (path: string) => `http://127.0.0.1:${sink.port}${path}`;
const arrivals = (path: string) => sink.received.filter((request) => request.url?.split("?")[0] === path).length;
const PUSH_HEADERS: Array<[string, string]> = [
  ["Content-Type", "application/json"],
  ["X-GitHub-Event", "push"],
];

/** The issue's endpoint: Billing (invoices), CI (pushes) and Broken (everything, answers 500), each with paths of its own. */
async function fannedOut(services: Services, teamId: string, tag: string) {
  const endpoint = await createEndpoint(services, { teamId, name: `fan ${tag}` });
  const scope = { teamId, endpointId: endpoint.id };
  const billing = await createDestination(services, { ...scope, name: "Billing", url: url(`/${tag}/billing`), filter: { "body.type": { $startsWith: "invoice." } } });
  const ci = await createDestination(services, { ...scope, name: "CI", url: url(`/${tag}/ci`), filter: { "headers.x-github-event": "push" } });
  const broken = await createDestination(services, { ...scope, name: "Broken", url: url(`/${tag}/broken`) });
  return { endpoint, billing, ci, broken };
}

/** A GitHub push captured on the endpoint, and done: CI delivered, Broken failed, Billing filtered it out. */
async function failedPush(services: Services, teamId: string, slug: string) {
  const eventId = await capture(services, slug, '{"ref":"refs/heads/main"}', PUSH_HEADERS);
  await waitFor(async () => {
    const event = await getEvent(services, { teamId, eventId });
    return event.status === "failed" && event.deliveries.every((delivery) => delivery.status !== "pending");
  }, "the push to be delivered to CI and fail at Broken");
  return eventId;
}

describe("replay targets on a fanned-out endpoint", { concurrent: true }, () => {
  test("original on a push with several matched destinations asks which, and sends nothing (not to the first destination)", async ({ services, user }) => {
    const { endpoint } = await fannedOut(services, user.teamId, "original");
    const eventId = await failedPush(services, user.teamId, endpoint.slug);
    const billingBefore = arrivals("/original/billing");
    const error = await expectRefused(
      replayEventAttempts(services, { teamId: user.teamId, userId: user.id, eventId, environment: "original" }),
      "validation_failed",
      /went to 2 destinations \(CI, Broken\): choose one with destination_id/,
    );
    expect(error.message).toMatch(/target "matched".*target "failed"/);
    expect(arrivals("/original/billing")).toBe(billingBefore);
  });

  test("a chosen destination_id reaches that destination's server and records it", async ({ services, user, database }) => {
    const { endpoint, billing, ci } = await fannedOut(services, user.teamId, "chosen");
    const eventId = await failedPush(services, user.teamId, endpoint.slug);
    const before = arrivals("/chosen/ci");
    const outcome = await replayEventAttempts(services, { teamId: user.teamId, userId: user.id, eventId, destinationId: ci.id });
    expect(outcome.target).toBe("original");
    expect(outcome.attempts).toMatchObject([{ environment: "original", destinationId: ci.id, destinationUrl: url("/chosen/ci"), status: "delivered" }]);
    expect(arrivals("/chosen/ci")).toBe(before + 1);
    // Any destination of the endpoint may be chosen, even one the event did not match.
    const toBilling = await replayEventAttempts(services, { teamId: user.teamId, userId: user.id, eventId, environment: "original", destinationId: billing.id });
    expect(toBilling.attempts).toMatchObject([{ destinationId: billing.id, destinationUrl: url("/chosen/billing") }]);
    const rows = await database.query<{ destination_id: string }>("select destination_id from replay_attempts where event_id = $1 order by id", [eventId]);
    expect(rows.map((row) => row.destination_id)).toEqual([ci.id, billing.id]);
  });

  test("matched: one attempt per matched destination, each recorded with its destination", async ({ services, user }) => {
    const { endpoint, ci, broken } = await fannedOut(services, user.teamId, "matched");
    const eventId = await failedPush(services, user.teamId, endpoint.slug);
    const [ciBefore, brokenBefore, billingBefore] = [arrivals("/matched/ci"), arrivals("/matched/broken"), arrivals("/matched/billing")];
    const outcome = await replayEventAttempts(services, { teamId: user.teamId, userId: user.id, eventId, environment: "matched" });
    expect(outcome.attempts.map((attempt) => [attempt.destinationId, attempt.status])).toEqual([
      [ci.id, "delivered"],
      [broken.id, "failed"],
    ]);
    expect([arrivals("/matched/ci") - ciBefore, arrivals("/matched/broken") - brokenBefore, arrivals("/matched/billing") - billingBefore]).toEqual([1, 1, 0]);
    expect(outcome.eventResolved).toBe(false);
  });

  test("failed: only the failed deliveries; destination_id does not go with it", async ({ services, user }) => {
    const { endpoint, broken } = await fannedOut(services, user.teamId, "failed");
    const eventId = await failedPush(services, user.teamId, endpoint.slug);
    const ciBefore = arrivals("/failed/ci");
    const brokenBefore = arrivals("/failed/broken");
    // Broken still answers 500: the attempt fails, nothing is resolved.
    const first = await replayEventAttempts(services, { teamId: user.teamId, userId: user.id, eventId, environment: "failed" });
    expect(first.attempts).toMatchObject([{ destinationId: broken.id, status: "failed" }]);
    expect(arrivals("/failed/ci")).toBe(ciBefore);
    expect(arrivals("/failed/broken")).toBe(brokenBefore + 1);
    await expectRefused(
      replayEventAttempts(services, { teamId: user.teamId, userId: user.id, eventId, environment: "failed", destinationId: broken.id }),
      "validation_failed",
      /destination_id goes with target "original" or "staging"/,
    );
    await expectRefused(replayEventAttempts(services, { teamId: user.teamId, userId: user.id, eventId }), "validation_failed", /Say where to send the event/);
  });

  test("a destination of another endpoint, or none, is refused before anything is sent", async ({ services, user }) => {
    const { endpoint } = await fannedOut(services, user.teamId, "foreign");
    const other = await fannedOut(services, user.teamId, "foreign-other");
    const eventId = await failedPush(services, user.teamId, endpoint.slug);
    await expectRefused(
      replayEventAttempts(services, { teamId: user.teamId, userId: user.id, eventId, destinationId: other.ci.id }),
      "unprocessable",
      /is not one of this endpoint's destinations/,
    );
    const captureOnly = await createEndpoint(services, { teamId: user.teamId, name: "capture only" });
    const captured = await capture(services, captureOnly.slug, "{}");
    await expectRefused(replayEventAttempts(services, { teamId: user.teamId, userId: user.id, eventId: captured, environment: "matched" }), "unprocessable", /matched no destination/);
    await expectRefused(replayEventAttempts(services, { teamId: user.teamId, userId: user.id, eventId: captured, environment: "original" }), "unprocessable", /no destination to replay to/);
  });

  test("an event that matched one destination replays to it with original, even when the endpoint has several", async ({ services, user }) => {
    const { endpoint, billing } = await fannedOut(services, user.teamId, "single");
    const eventId = await capture(services, endpoint.slug, '{"type":"invoice.paid"}');
    await waitFor(async () => (await getEvent(services, { teamId: user.teamId, eventId })).deliveries.every((delivery) => delivery.status !== "pending"), "the invoice's deliveries to finish");
    // It matched Billing and Broken: original is a question; a replay to Billing by id is not.
    await expectRefused(replayEventAttempts(services, { teamId: user.teamId, userId: user.id, eventId, environment: "original" }), "validation_failed", /\(Billing, Broken\)/);
    const outcome = await replayEventAttempts(services, { teamId: user.teamId, userId: user.id, eventId, destinationId: billing.id });
    expect(outcome.attempts).toMatchObject([{ destinationId: billing.id, status: "delivered" }]);
    // Listing still works with the flags (the event failed at Broken and is not resolved).
    const page = await listEvents(services, { teamId: user.teamId, endpointId: endpoint.id });
    expect(page.events.map((row) => [row.id, row.resolved])).toEqual([[eventId, false]]);
  });
});
