import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { DashboardClient } from "./dashboard-client.js";
import { startTestServer, type TestServer } from "./test-server.js";

async function signedUp(server: TestServer, email: string): Promise<DashboardClient> {
  const client = new DashboardClient(server.rehook.url);
  expect((await client.postForm("/signup", { email, password: "a long enough password" })).status).toBe(303);
  return client;
}

async function createEndpoint(client: DashboardClient, input: Record<string, unknown>): Promise<{ id: string; slug: string }> {
  const created = await client.mutate("endpoints.create", input);
  expect(created.status).toBe(200);
  return created.body.result!.data.json as { id: string; slug: string };
}

// The replay route (session, origin, body, answers and errors) is tested in
// packages/http/test/replay-route.test.ts and replay-edit-route.test.ts, a bulk replay of 500
// events in packages/services/test/bulk-replay-volume.test.ts; here: bulk replays across real
// instances.
describe("bulk replay", () => {
  // Two instances on one database, started before the test: a first start in the test's own
  // time leaves the instances too cold to hand the job over within the waits below.
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    a = await startTestServer({ ALLOW_PRIVATE_DESTINATIONS: "true" });
    b = await startTestServer({ ALLOW_PRIVATE_DESTINATIONS: "true" }, a.db);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("survives a stopping instance: another resumes after the last event it finished, and each event is replayed once", async () => {
    // Answers the first 8 replays at once and holds the others until released.
    let answered = 0;
    const held: Array<() => void> = [];
    const target = await startSink((_req, res) => {
      if (answered < 8) {
        answered += 1;
        res.end("ok");
      } else held.push(() => res.end("ok"));
    });
    try {
      const client = await signedUp(a, "resume@example.com");
      const endpoint = await createEndpoint(client, { name: "resume", destinationUrl: null });
      for (let i = 0; i < 30; i += 1) {
        const response = await fetch(`${a.rehook.url}/api/webhook/${endpoint.slug}`, { method: "POST", body: `event-${i}` });
        expect(response.status).toBe(200);
      }
      const started = await client.mutate("replays.startBulk", { endpointId: endpoint.id, environment: "custom", customUrl: `http://127.0.0.1:${target.port}/in`, status: null });
      expect(started.status).toBe(200);
      const job = started.body.result!.data.json as { id: string; total: number };
      expect(job.total).toBe(30);
      await waitFor(() => held.length > 0, "the replay to reach the held requests");
      const holder = [a, b].find((server) => server.rehook.jobs.runningCount("bulk_replay") === 1)!;
      const other = holder === a ? b : a;
      // The holder stops: it finishes the sends under way, stores where it got to, and hands the job back.
      const closing = holder.rehook.close();
      await waitFor(() => holder.rehook.jobs.stopping, "the job to be told to stop");
      // From now on everything is answered at once: the other instance may claim the handed-back
      // job while the holder is still closing, and none of its requests may wait on the test.
      answered = -1_000;
      held.splice(0).forEach((answer) => answer());
      await closing;

      // The other instance finishes the job, after the last event the holder stored as done:
      // had it started over, the first events would arrive twice.
      await waitFor(
        async () => (await a.db.query<{ state: string }>("select state from replay_jobs where id = $1", [job.id]))[0]!.state === "finished",
        "the other instance to finish the replay",
        40_000,
      );
      await waitFor(() => other.rehook.jobs.runningCount() === 0, "the job to end on the other instance");
      const attempts = await a.db.query<{ events: number; attempts: number }>(
        "select count(distinct event_id)::int as events, count(*)::int as attempts from replay_attempts where job_id = $1",
        [job.id],
      );
      expect(attempts).toEqual([{ events: 30, attempts: 30 }]);
      const bodies = target.received.map((request) => request.body.toString());
      expect(bodies).toHaveLength(30);
      expect(new Set(bodies)).toEqual(new Set(Array.from({ length: 30 }, (_, i) => `event-${i}`)));
      const summary = (await a.db.query("select done, delivered, failed from replay_jobs where id = $1", [job.id]))[0];
      expect(summary).toEqual({ done: 30, delivered: 30, failed: 0 });
    } finally {
      await target.close();
    }
  });
});
