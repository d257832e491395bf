import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { DashboardClient } from "./dashboard-client.js";
import { startTestServer, type TestServer } from "./test-server.js";

interface Post {
  text: string;
  blocks: Array<{ type: string; text?: { text: string } }>;
}

let t: TestServer;
let user: DashboardClient;
let destination: Sink;
let provider: Sink;
let healthy = false;
const posts: Post[] = [];

const data = <T>(envelope: { body: { result?: { data: { json: unknown } } } }) => envelope.body.result!.data.json as T;

async function capture(slug: string, body: string): Promise<string> {
  const response = await fetch(`${t.rehook.url}/api/webhook/${slug}`, { method: "POST", body });
  expect(response.status).toBe(200);
  return ((await response.json()) as { eventId: string }).eventId;
}

const statuses = async (ids: string[]) =>
  (await t.db.query<{ id: string; status: string; attempts: number }>("select id, status, attempts from events where id = any($1::uuid[]) order by id", [ids])).map(
    (row) => [row.status, row.attempts],
  );

beforeAll(async () => {
  destination = await startSink((_req, res) => {
    res.statusCode = healthy ? 200 : 500;
    res.end(healthy ? "ok" : "down");
  });
  provider = await startSink((_req, res, body) => {
    posts.push(JSON.parse(body.toString()) as Post);
    res.end("ok");
  });
  t = await startTestServer({ ALLOW_PRIVATE_DESTINATIONS: "true", FORWARD_TIMEOUT_MS: "1000", CHAT_HOOKS_BASE: `http://127.0.0.1:${provider.port}/services` });
  user = new DashboardClient(t.rehook.url);
  expect((await user.postForm("/signup", { email: "breaker@example.com", password: "a long enough password" })).status).toBe(303);
  // Failed events notify: a scheduled retry must not.
  const saved = await user.mutate("notifications.save", { enabled: true, webhookUrl: `http://127.0.0.1:${provider.port}/services/T/B/X`, triggers: ["failed"] });
  expect(saved.status).toBe(200);
});
afterAll(async () => {
  await t.close();
  await destination.close();
  await provider.close();
});

describe("circuit breaker", () => {
  it("pauses after N consecutive failed attempts, holds new and scheduled events, notifies once, and drains in order on resume", async () => {
    const created = await user.mutate("endpoints.create", {
      name: "breaker",
      destinationUrl: `http://127.0.0.1:${destination.port}/in`,
      // A failed attempt's retry is an hour away: only resuming makes it due now.
      retryPolicy: { maxAttempts: 3, initialDelayMs: 3_600_000, maxDelayMs: 3_600_000 },
      pauseAfterFailures: 2,
    });
    const endpoint = data<{ id: string; slug: string; pauseAfterFailures: number }>(created);
    expect(endpoint.pauseAfterFailures).toBe(2);

    const first = [await capture(endpoint.slug, "1"), await capture(endpoint.slug, "2")];
    await waitFor(async () => data<{ forwardingPaused: boolean }>(await user.query("endpoints.get", { id: endpoint.id })).forwardingPaused, "the breaker to trip");
    const paused = data<{ forwardingPaused: boolean; pausedReason: string; pausedAt: string; consecutiveFailures: number }>(await user.query("endpoints.get", { id: endpoint.id }));
    expect(paused.pausedReason).toBe("2 consecutive failed attempts (last: destination answered 500)");
    expect(new Date(paused.pausedAt).getTime()).not.toBeNaN();
    expect(await statuses(first)).toEqual([
      ["pending", 1],
      ["pending", 1],
    ]);
    // The owner hears about the pause once, with a link to the endpoint (and nothing about the retries).
    await waitFor(() => posts.length === 1, "the Forwarding Paused message");
    expect(posts[0]!.blocks[0]!.text!.text).toBe("Forwarding Paused");
    expect(JSON.stringify(posts[0])).toContain(`/endpoints/${endpoint.id}`);
    expect(posts[0]!.text).toContain("2 consecutive failed attempts");

    // New events wait unsent: neither the fast path nor a recovery claim takes them.
    const later = await capture(endpoint.slug, "3");
    const other = data<{ id: string; slug: string }>(await user.mutate("endpoints.create", { name: "other", destinationUrl: `http://127.0.0.1:${destination.port}/other` }));
    healthy = true;
    const otherEvent = await capture(other.slug, "other");
    // Made unleased, so only a recovery claim can send it: once it is delivered, a claim ran and skipped the paused endpoint.
    await waitFor(async () => (await statuses([otherEvent]))[0]![0] === "delivered", "the other endpoint's event");
    await t.db.query("update events set status = 'pending', lease_expires_at = null where id = $1", [otherEvent]);
    await waitFor(async () => (await statuses([otherEvent]))[0]![0] === "delivered", "a recovery claim");
    expect(await statuses([later])).toEqual([["pending", 0]]);
    expect(destination.received.filter((r) => r.url === "/in")).toHaveLength(2);

    // Retry now is queued but says it waits for the resume.
    const retried = data<{ forwardingPaused: boolean; message: string }>(await user.mutate("events.retry", { id: later }));
    expect(retried).toMatchObject({ forwardingPaused: true });
    expect(retried.message).toMatch(/paused/);
    expect(data<{ count: number; forwardingPaused: boolean }>(await user.mutate("endpoints.retryFailed", { id: endpoint.id }))).toMatchObject({ count: 0, forwardingPaused: true });

    const resumed = data<{ forwardingPaused: boolean; pausedReason: null; consecutiveFailures: number }>(await user.mutate("endpoints.resume", { id: endpoint.id }));
    expect(resumed).toMatchObject({ forwardingPaused: false, pausedReason: null, pausedAt: null, consecutiveFailures: 0 });
    const all = [...first, later];
    await waitFor(async () => (await statuses(all)).every(([status]) => status === "delivered"), "the backlog to drain");
    expect(destination.received.filter((r) => r.url === "/in").map((r) => r.body.toString())).toEqual(["1", "2", "1", "2", "3"]);
    const counted = (await t.db.query<{ delivered_count: string; failed_count: string }>("select delivered_count, failed_count from endpoints where id = $1", [endpoint.id]))[0];
    expect(counted).toEqual({ delivered_count: "3", failed_count: "0" });
    expect(posts).toHaveLength(1);
    expect(Number((await t.db.query<{ n: string }>("select count(*) as n from notification_outbox"))[0]!.n)).toBe(0);
  });

  it("a delivered attempt resets the count, and a threshold of null never pauses", async () => {
    healthy = false;
    const created = data<{ id: string; slug: string }>(
      await user.mutate("endpoints.create", { name: "reset", destinationUrl: `http://127.0.0.1:${destination.port}/reset`, pauseAfterFailures: 2 }),
    );
    const failedOnce = await capture(created.slug, "a");
    await waitFor(async () => (await statuses([failedOnce]))[0]![0] === "failed", "one failure");
    healthy = true;
    const ok = await capture(created.slug, "b");
    await waitFor(async () => (await statuses([ok]))[0]![0] === "delivered", "a delivery");
    healthy = false;
    const failedAgain = await capture(created.slug, "c");
    await waitFor(async () => (await statuses([failedAgain]))[0]![0] === "failed", "another failure");
    const endpoint = data<{ forwardingPaused: boolean; consecutiveFailures: number }>(await user.query("endpoints.get", { id: created.id }));
    expect(endpoint).toMatchObject({ forwardingPaused: false, consecutiveFailures: 1 });

    const off = data<{ pauseAfterFailures: null }>(await user.mutate("endpoints.update", { id: created.id, pauseAfterFailures: null }));
    expect(off.pauseAfterFailures).toBeNull();
    const more = [await capture(created.slug, "d"), await capture(created.slug, "e")];
    await waitFor(async () => (await statuses(more)).every(([status]) => status === "failed"), "more failures");
    expect(data<{ forwardingPaused: boolean; consecutiveFailures: number }>(await user.query("endpoints.get", { id: created.id }))).toMatchObject({
      forwardingPaused: false,
      consecutiveFailures: 3,
    });
  });
});
