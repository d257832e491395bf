import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSink } from "@rehook/vitest-config/sink";
import { eventCountMismatches } from "@rehook/vitest-config/event-counts";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { DashboardClient } from "./dashboard-client.js";
import { head, rawRequest } from "./raw-http.js";
import { startTestServer, type TestServer } from "./test-server.js";

let t: TestServer;
let owner: DashboardClient;
let stranger: DashboardClient;

const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");
const body = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x31, 0x7d, 0x00, 0xff]); // JSON-ish, then NUL and invalid UTF-8
const sentHeaders: Array<[string, string]> = [
  ["Content-Type", "application/json"],
  ["X-Dup", "1"],
  ["Stripe-Signature", "t=1,v1=abc"],
  ["X-Dup", "2"],
];

async function signedUp(server: TestServer, email: string): Promise<DashboardClient> {
  const client = new DashboardClient(server.rehook.url);
  expect((await client.postForm("/signup", { email, password: "a long enough password" })).status).toBe(303);
  return client;
}

async function capture(slug: string, target = "/orders?x=1"): Promise<string> {
  const response = await rawRequest(t.rehook.url, [head("POST", `/api/webhook/${slug}${target}`, [...sentHeaders, ["Content-Length", String(body.length)]]), body]);
  expect(response.status).toBe(200);
  return JSON.parse(response.body).eventId as string;
}

async function createEndpoint(client: DashboardClient, input: Record<string, unknown>): Promise<{ id: string; slug: string }> {
  const created = await client.mutate("endpoints.create", input);
  expect(created.status).toBe(200);
  return created.body.result!.data.json as { id: string; slug: string };
}

beforeAll(async () => {
  t = await startTestServer({ ALLOW_PRIVATE_DESTINATIONS: "true" });
  owner = await signedUp(t, "replayer@example.com");
  stranger = await signedUp(t, "stranger@example.com");
});
afterAll(async () => {
  await t.close();
});

// The replay route (session, origin, body, answers and errors) is tested in
// packages/http/test/replay-route.test.ts; here: bulk replays across real instances.
describe("bulk replay", () => {
  it("replays 500 failed events of an endpoint to its fixed destination and reports a correct summary", async () => {
    const failing = await startSink((_req, res) => {
      res.statusCode = 500;
      res.end("down");
    });
    try {
      const endpoint = await createEndpoint(owner, { name: "bulk", destinationUrl: `http://127.0.0.1:${failing.port}/in` });
      const ids: string[] = [];
      for (let batch = 0; batch < 10; batch += 1) ids.push(...(await Promise.all(Array.from({ length: 50 }, () => capture(endpoint.slug, "")))));
      await waitFor(async () => (await t.db.query("select 1 from events where endpoint_id = $1 and status = 'failed'", [endpoint.id])).length === 500, "500 failed events", 60_000);

      const fixed = await startSink((_req, res) => res.end("ok"));
      try {
        await owner.mutate("endpoints.update", { id: endpoint.id, destinationUrl: `http://127.0.0.1:${fixed.port}/in` });
        const started = await owner.mutate("replays.startBulk", { endpointId: endpoint.id, environment: "original" });
        expect(started.status).toBe(200);
        const job = started.body.result!.data.json as { id: string; total: number; state: string };
        expect(job).toMatchObject({ total: 500, state: "running" });
        let summary: { state: string; done: number; delivered: number; failed: number } | undefined;
        await waitFor(async () => {
          summary = (await owner.query("replays.bulk", { id: job.id })).body.result!.data.json as typeof summary;
          return summary!.state !== "running";
        }, "the bulk replay to finish", 120_000);
        expect(summary).toMatchObject({ state: "finished", done: 500, delivered: 500, failed: 0 });
        expect(fixed.received).toHaveLength(500);
        expect(new Set(fixed.received.map((r) => sha256(r.body)))).toEqual(new Set([sha256(body)]));
        const statuses = await t.db.query<{ status: string; n: string }>("select status, count(*) as n from events where endpoint_id = $1 group by status", [endpoint.id]);
        expect(statuses).toEqual([{ status: "failed", n: "500" }]);
        // Replays leave the events' statuses alone, and so their counts.
        expect(await eventCountMismatches(t.db)).toEqual([]);
        expect((await stranger.query("replays.bulk", { id: job.id })).status).toBe(404);
      } finally {
        await fixed.close();
      }
    } finally {
      await failing.close();
    }
  });

  it("survives a stopping instance: another resumes after the last event it finished, and each event is replayed once", async () => {
    const a = await startTestServer({ ALLOW_PRIVATE_DESTINATIONS: "true" });
    const b = await startTestServer({ ALLOW_PRIVATE_DESTINATIONS: "true" }, a.db);
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
      held.splice(0).forEach((answer) => answer());
      await closing;
      const stored = (await a.db.query<{ state: string; done: number; after_id: string | null }>("select state, done, after_id from replay_jobs where id = $1", [job.id]))[0]!;
      expect(stored.state).toBe("running");
      expect(stored.done).toBeGreaterThan(8);
      expect(stored.done).toBeLessThan(30);
      expect(stored.after_id).not.toBeNull();

      // Whatever arrives now is answered at once; the other instance finishes the job.
      answered = -1_000;
      await waitFor(
        async () => (await a.db.query<{ state: string }>("select state from replay_jobs where id = $1", [job.id]))[0]!.state === "finished",
        "the other instance to finish the replay",
      );
      await waitFor(() => other.rehook.jobs.runningCount() === 0, "the job to end on the other instance");
      const bodies = target.received.map((request) => request.body.toString());
      expect(bodies).toHaveLength(30);
      expect(new Set(bodies)).toEqual(new Set(Array.from({ length: 30 }, (_, i) => `event-${i}`)));
      const summary = (await a.db.query("select done, delivered, failed from replay_jobs where id = $1", [job.id]))[0];
      expect(summary).toEqual({ done: 30, delivered: 30, failed: 0 });
    } finally {
      await target.close();
      await b.close();
      await a.close();
    }
  });
});
