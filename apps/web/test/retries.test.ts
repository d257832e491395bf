import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { eventCountMismatches } from "@rehook/vitest-config/event-counts";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { DashboardClient } from "./dashboard-client.js";
import { startTestServer, type TestServer } from "./test-server.js";

// What retries need two real instances for: one stopping hands its kept retries back. The
// retry stories of one instance (policies, Retry-After, retry now, kept retries, scoping)
// are the use cases' own: packages/services/test/retries.test.ts.

/** A destination that answers each request with the next scripted answer, then with 200. */
class ScriptedDestination {
  script: Array<(res: ServerResponse) => void> = [];
  sink!: Sink;

  async start(): Promise<this> {
    this.sink = await startSink((_req, res) => (this.script.shift() ?? ((r: ServerResponse) => r.end("ok")))(res));
    return this;
  }

  url(path = "/in"): string {
    return `http://127.0.0.1:${this.sink.port}${path}`;
  }
}

const answer = (status: number, body: string, headers: Record<string, string> = {}) => (res: ServerResponse) => {
  res.writeHead(status, { "x-attempt-answer": String(status), ...headers });
  res.end(body);
};

let t: TestServer;
let user: DashboardClient;
let destination: ScriptedDestination;

interface EventRow {
  status: string;
  attempts: number;
  next_attempt_at: Date | null;
  completed_at: Date | null;
}

const eventRow = async (id: string) =>
  (
    await t.db.query<EventRow>(
      "select e.status, d.attempts, e.next_attempt_at, e.completed_at from events e join deliveries d on d.event_id = e.id where e.id = $1",
      [id],
    )
  )[0]!;
const attemptRows = async (id: string) =>
  t.db.query<{ attempt: number; outcome: string; response_status: number | null; started_at: Date }>(
    "select attempt, outcome, response_status, started_at from delivery_attempts where event_id = $1 order by attempt",
    [id],
  );

async function endpoint(name: string, input: Record<string, unknown>): Promise<{ id: string; slug: string }> {
  const created = await user.mutate("endpoints.create", { name, destinationUrl: destination.url(), ...input });
  expect(created.status).toBe(200);
  return created.body.result!.data.json as { id: string; slug: string };
}

beforeAll(async () => {
  destination = await new ScriptedDestination().start();
  t = await startTestServer({ ALLOW_PRIVATE_DESTINATIONS: "true", FORWARD_TIMEOUT_MS: "1000" });
  user = new DashboardClient(t.rehook.url);
  expect((await user.postForm("/signup", { email: "retries@example.com", password: "a long enough password" })).status).toBe(303);
});
afterAll(async () => {
  await t.close();
  await destination.sink.close();
});

describe("automatic retries", () => {
  it("a stopping instance hands its kept retries back with their attempt counted; another sends the next one", async () => {
    const other = await startTestServer({ ALLOW_PRIVATE_DESTINATIONS: "true", FORWARD_TIMEOUT_MS: "1000" }, t.db);
    const handed = await endpoint("handed back", { retryPolicy: { maxAttempts: 3, initialDelayMs: 1_500, maxDelayMs: 1_500 } });
    destination.script.push(answer(500, "first"));
    const response = await fetch(`${other.rehook.url}/api/webhook/${handed.slug}`, { method: "POST", body: '{"n":8}' });
    const { eventId: id } = (await response.json()) as { eventId: string };
    await waitFor(() => other.rehook.delivery.heldRetries === 1, "the other instance to keep the retry");
    await other.close();
    const row = (
      await t.db.query<{ status: string; delivery_status: string; attempts: number; lease_expires_at: Date | null }>(
        "select e.status, d.status as delivery_status, d.attempts, d.lease_expires_at from events e join deliveries d on d.event_id = e.id where e.id = $1",
        [id],
      )
    )[0]!;
    expect(row).toEqual({ status: "pending", delivery_status: "pending", attempts: 1, lease_expires_at: null });
    await waitFor(async () => (await eventRow(id)).status === "delivered", "the instance still running to send the retry");
    expect((await attemptRows(id)).map((a) => [a.attempt, a.outcome])).toEqual([
      [1, "failed"],
      [2, "delivered"],
    ]);
  });

  it("kept every endpoint's per-status counts equal to its events through the hand-over above", async () => {
    expect(await eventCountMismatches(t.db)).toEqual([]);
  });
});
