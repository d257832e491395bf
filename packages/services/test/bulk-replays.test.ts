import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect } from "vitest";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { createDestination, createEndpoint, getEvent, listEvents, listReplays, MAX_RUNNING_BULK_REPLAYS_PER_TEAM, type Services } from "@rehook/services";
import { capture, expectRefused, MISSING_ID, test } from "./support.js";

// Bulk replays as jobs of the graph's job runner: checked and counted when started, run in
// the background to the endpoint's destination or a custom URL, their progress read back by
// their team only, and at most MAX_RUNNING_BULK_REPLAYS_PER_TEAM of them running per team.

/** Requests to /hold wait for release(); everything else answers at once (500 on /fail, 200 otherwise). */
let sink: Sink;
let held: ServerResponse[] = [];
let holding = false;
beforeAll(async () => {
  sink = await startSink((req, res) => {
    if (req.url === "/hold" && holding) {
      held.push(res);
      return;
    }
    res.statusCode = req.url === "/fail" ? 500 : 200;
    res.end(res.statusCode === 200 ? "ok" : "no");
  });
});
afterAll(() => sink.close());
const release = () => {
  holding = false;
  for (const res of held.splice(0)) res.end("ok");
};

const url = (path: string) => `http://127.0.0.1:${sink.port}${path}`;

async function finished(services: Services, teamId: string, jobId: string) {
  let job = await services.bulkReplays.get({ teamId, jobId });
  await waitFor(async () => {
    job = await services.bulkReplays.get({ teamId, jobId });
    return job.state !== "running";
  }, `bulk replay ${jobId} to finish`);
  return job;
}

/** An endpoint forwarding to /fail with `count` events captured and failed. */
async function failedEvents(services: Services, teamId: string, count: number) {
  const endpoint = await createEndpoint(services, { teamId, name: "failing", destinationUrl: url("/fail") });
  const ids: string[] = [];
  for (let i = 0; i < count; i += 1) ids.push(await capture(services, endpoint.slug, `{"n":${i}}`));
  await waitFor(async () => (await Promise.all(ids.map((eventId) => getEvent(services, { teamId, eventId })))).every((event) => event.status === "failed"), "the events to fail");
  return { endpoint, ids };
}

describe("start and get", () => {
  test("replays the endpoint's failed events to a custom URL in the background, counting each", async ({ services, user }) => {
    const { endpoint, ids } = await failedEvents(services, user.teamId, 3);
    const before = sink.received.filter((request) => request.url === "/replayed").length;
    const started = await services.bulkReplays.start({ teamId: user.teamId, userId: user.id, endpointId: endpoint.id, environment: "custom", customUrl: url("/replayed") });
    expect(started).toMatchObject({ endpointId: endpoint.id, environment: "custom", customUrl: url("/replayed"), statusFilter: "failed", state: "running", total: 3, finishedAt: null });
    const done = await finished(services, user.teamId, started.id);
    expect(done).toMatchObject({ state: "finished", total: 3, done: 3, delivered: 3, failed: 0, error: null, finishedAt: expect.any(Date) });
    expect(sink.received.filter((request) => request.url === "/replayed").length - before).toBe(3);
    const replays = await listReplays(services, { teamId: user.teamId, endpointId: endpoint.id });
    expect(replays.replays.map((replay) => replay.eventId).sort()).toEqual([...ids].sort());
    // A replay never changes the events.
    for (const eventId of ids) expect((await getEvent(services, { teamId: user.teamId, eventId })).status).toBe("failed");
  });

  test("to the original destination, counting what it refuses as failed; status null takes every event", async ({ services, user }) => {
    const { endpoint } = await failedEvents(services, user.teamId, 2);
    const started = await services.bulkReplays.start({ teamId: user.teamId, userId: user.id, endpointId: endpoint.id, environment: "original", status: null });
    // The endpoint's only destination, by id.
    expect(started).toMatchObject({ statusFilter: null, total: 2, customUrl: null, target: "destination", destinationId: expect.any(String) });
    expect(await finished(services, user.teamId, started.id)).toMatchObject({ state: "finished", done: 2, delivered: 0, failed: 2 });
  });

  test("an endpoint with nothing to replay finishes at once with zero", async ({ services, user }) => {
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "calm", destinationUrl: url("/ok") });
    const started = await services.bulkReplays.start({ teamId: user.teamId, userId: user.id, endpointId: endpoint.id, environment: "original" });
    expect(started.total).toBe(0);
    expect(await finished(services, user.teamId, started.id)).toMatchObject({ state: "finished", done: 0 });
  });

  test("refuses bad input, a target this endpoint cannot take, and another team's endpoint, before anything starts", async ({ services, user, other }) => {
    const inbox = await createEndpoint(services, { teamId: user.teamId, name: "inbox" });
    const start = (input: Partial<Parameters<Services["bulkReplays"]["start"]>[0]>) =>
      services.bulkReplays.start({ teamId: user.teamId, userId: user.id, endpointId: inbox.id, environment: "custom", customUrl: url("/x"), ...input });
    await expectRefused(start({ endpointId: "nope" }), "validation_failed", /endpointId must be an endpoint id/i);
    await expectRefused(start({ environment: "staging" }), "validation_failed", /bulk replays go to one of the endpoint's destinations/i);
    await expectRefused(start({ status: "gone" }), "validation_failed");
    await expectRefused(start({ customUrl: null }), "validation_failed", /customUrl is required/);
    await expectRefused(start({ environment: "original" }), "unprocessable", /this endpoint has no destination to replay to/i);
    const noEndpoint = `There is no endpoint with the id ${inbox.id}. It may have been deleted; list your endpoints to find the right id.`;
    await expectRefused(services.bulkReplays.start({ teamId: other.teamId, userId: other.id, endpointId: inbox.id, environment: "custom", customUrl: url("/x") }), "not_found", noEndpoint);
    await expectRefused(start({ endpointId: MISSING_ID }), "not_found");
  });

  test("get answers another team's job, and a made-up one, as missing", async ({ services, user, other }) => {
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "mine", destinationUrl: url("/ok") });
    const started = await services.bulkReplays.start({ teamId: user.teamId, userId: user.id, endpointId: endpoint.id, environment: "original" });
    const missing = (id: string) => `There is no bulk replay with the id ${id}. Start a new one from the endpoint.`;
    await expectRefused(services.bulkReplays.get({ teamId: other.teamId, jobId: started.id }), "not_found", missing(started.id));
    await expectRefused(services.bulkReplays.get({ teamId: user.teamId, jobId: MISSING_ID }), "not_found", missing(MISSING_ID));
  });
});

describe("targets among the endpoint's destinations", () => {
  /** An endpoint with /bulk-<tag>/ok (delivers) and /fail (fails), and `count` events delivered to the first and failed at the second. */
  async function halfFailed(services: Services, teamId: string, tag: string, count: number) {
    const endpoint = await createEndpoint(services, { teamId, name: `bulk ${tag}`, destinationUrl: url(`/bulk-${tag}/ok`) });
    const down = await createDestination(services, { teamId, endpointId: endpoint.id, name: "Down", url: url("/fail") });
    const ids: string[] = [];
    for (let i = 0; i < count; i += 1) ids.push(await capture(services, endpoint.slug, `{"n":${i}}`));
    await waitFor(
      async () => (await Promise.all(ids.map((eventId) => getEvent(services, { teamId, eventId })))).every((event) => event.status === "failed" && event.deliveries.every((d) => d.status !== "pending")),
      "the events to fail at Down",
    );
    return { endpoint, down, ids };
  }

  test("target failed replays only the failed deliveries, each to its own destination, and resolves those delivered", async ({ services, user, database }) => {
    const { endpoint, down, ids } = await halfFailed(services, user.teamId, "failed", 3);
    const okBefore = sink.received.filter((request) => request.url === "/bulk-failed/ok").length;
    // Down recovers at a new URL: the destination is the same, so its failed deliveries are resolved by the replays.
    await database.query("update destinations set url = $1 where id = $2", [url("/bulk-failed/mended"), down.id]);
    const started = await services.bulkReplays.start({ teamId: user.teamId, userId: user.id, endpointId: endpoint.id, environment: "failed" });
    expect(started).toMatchObject({ target: "failed", destinationId: null, environment: "original", total: 3 });
    expect(await finished(services, user.teamId, started.id)).toMatchObject({ state: "finished", done: 3, delivered: 3, failed: 0 });
    expect(sink.received.filter((request) => request.url === "/bulk-failed/mended")).toHaveLength(3);
    expect(sink.received.filter((request) => request.url === "/bulk-failed/ok").length).toBe(okBefore);
    const rows = await database.query<{ destination_id: string }>("select destination_id from replay_attempts where event_id = any($1::uuid[])", [ids]);
    expect(rows.map((row) => row.destination_id)).toEqual([down.id, down.id, down.id]);
    expect((await listEvents(services, { teamId: user.teamId, endpointId: endpoint.id, unresolved: true })).events).toEqual([]);
    // Nothing failed is left unresolved: a second bulk replay to the failed ones has nothing to send.
    const again = await services.bulkReplays.start({ teamId: user.teamId, userId: user.id, endpointId: endpoint.id, environment: "failed" });
    expect(again.total).toBe(0);
  });

  test("a bulk replay to a custom URL resolves nothing; original on several destinations asks which", async ({ services, user }) => {
    const { endpoint, down } = await halfFailed(services, user.teamId, "custom", 2);
    const started = await services.bulkReplays.start({ teamId: user.teamId, userId: user.id, endpointId: endpoint.id, environment: "custom", customUrl: url("/scratch") });
    expect(await finished(services, user.teamId, started.id)).toMatchObject({ state: "finished", delivered: 2 });
    expect((await listEvents(services, { teamId: user.teamId, endpointId: endpoint.id, unresolved: true })).events).toHaveLength(2);
    await expectRefused(
      services.bulkReplays.start({ teamId: user.teamId, userId: user.id, endpointId: endpoint.id, environment: "original" }),
      "validation_failed",
      /This endpoint has 2 destinations \(127\.0\.0\.1, Down\): choose one/,
    );
    const toDown = await services.bulkReplays.start({ teamId: user.teamId, userId: user.id, endpointId: endpoint.id, destinationId: down.id });
    expect(toDown).toMatchObject({ target: "destination", destinationId: down.id, total: 2 });
    expect(await finished(services, user.teamId, toDown.id)).toMatchObject({ state: "finished", failed: 2 });
  });
});

describe("limits", () => {
  test(`runs at most ${MAX_RUNNING_BULK_REPLAYS_PER_TEAM} per team at once; another team is not held back; one more once one is done`, async ({ services, user, other }) => {
    const { endpoint } = await failedEvents(services, user.teamId, 1);
    holding = true;
    try {
      const running = [];
      for (let i = 0; i < MAX_RUNNING_BULK_REPLAYS_PER_TEAM; i += 1) {
        running.push(await services.bulkReplays.start({ teamId: user.teamId, userId: user.id, endpointId: endpoint.id, environment: "custom", customUrl: url("/hold") }));
      }
      await expectRefused(
        services.bulkReplays.start({ teamId: user.teamId, userId: user.id, endpointId: endpoint.id, environment: "custom", customUrl: url("/hold") }),
        "rate_limited",
        `${MAX_RUNNING_BULK_REPLAYS_PER_TEAM} bulk replays are already running: wait for one to finish, then start this one`,
      );
      const theirs = await createEndpoint(services, { teamId: other.teamId, name: "theirs", destinationUrl: url("/ok") });
      await services.bulkReplays.start({ teamId: other.teamId, userId: other.id, endpointId: theirs.id, environment: "original" });
      await waitFor(() => held.length === MAX_RUNNING_BULK_REPLAYS_PER_TEAM, "both replays to be under way");
      release();
      for (const job of running) expect(await finished(services, user.teamId, job.id)).toMatchObject({ state: "finished", delivered: 1 });
      const next = await services.bulkReplays.start({ teamId: user.teamId, userId: user.id, endpointId: endpoint.id, environment: "custom", customUrl: url("/ok") });
      expect(await finished(services, user.teamId, next.id)).toMatchObject({ state: "finished" });
    } finally {
      release();
    }
  });
});
