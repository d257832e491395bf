import { afterAll, beforeAll, describe, expect } from "vitest";
import { DeliveryDispatcher } from "@rehook/delivery";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { withServiceGraph } from "@rehook/vitest-config/service-fixtures";
import {
  auditContracts,
  createAlertRule,
  createEndpoint,
  listDestinations,
  resumeDestination,
  runContract,
  type Actor,
  type Services,
} from "@rehook/services";
import { capture, test } from "./support.js";

// The exact circuit breaker (issue 42), on the running service graph against a real loopback
// destination that counts what reaches it: `pause_after_failures: N` pauses after N failed
// attempts in a row; after a failure the destination gets one send at a time (across
// instances), so no more than N requests reach it; a resume sends one probe, and the backlog
// flows only once a probe is delivered; the card's count (the API's consecutive_failures and
// paused_reason), the alert and the audit log say the same number.

/** A destination answering 500 (or 200 once healthy), counting requests per path and how many it held at once. */
class CountingDestination {
  healthy = false;
  /** How long each answer is held (ms): requests to a failing destination overlap only if sends run side by side. */
  holdMs = 0;
  private open = 0;
  mostAtOnce = 0;
  sink!: Sink;

  async start(): Promise<this> {
    this.sink = await startSink((_req, res) => {
      this.open += 1;
      this.mostAtOnce = Math.max(this.mostAtOnce, this.open);
      const healthy = this.healthy;
      setTimeout(() => {
        this.open -= 1;
        res.statusCode = healthy ? 200 : 500;
        res.end(healthy ? "ok" : "down");
      }, this.holdMs);
    });
    return this;
  }

  url(path: string): string {
    return `http://127.0.0.1:${this.sink.port}${path}`;
  }

  bodies(path: string): string[] {
    return this.sink.received.filter((request) => request.url === path).map((request) => request.body.toString());
  }
}

let destination: CountingDestination;
let channel: Sink;
const alerts: Array<{ path: string; summary: string }> = [];

beforeAll(async () => {
  destination = await new CountingDestination().start();
  channel = await startSink((req, res, body) => {
    const json = JSON.parse(body.toString()) as { data: { summary: string } };
    alerts.push({ path: req.url ?? "", summary: json.data.summary });
    res.end("ok");
  });
});
afterAll(async () => {
  await destination.sink.close();
  await channel.close();
});

type Query = <Row extends Record<string, unknown>>(sql: string, params?: unknown[]) => Promise<Row[]>;

function dispatcherOf(services: Services): DeliveryDispatcher {
  if (!(services.forwarder instanceof DeliveryDispatcher)) throw new Error("the graph's forwarder is not the delivery dispatcher");
  return services.forwarder;
}

/** Waits until nothing is under way to the destination: no lease in the database, nothing held by these instances. */
async function settled(db: { query: Query }, graphs: Services[], destinationId: string): Promise<void> {
  await waitFor(async () => {
    if (graphs.some((graph) => dispatcherOf(graph).load(destinationId).running + dispatcherOf(graph).load(destinationId).waiting > 0)) return false;
    const [row] = await db.query<{ n: string }>(
      `select (select count(*) from deliveries where destination_id = $1 and status = 'pending' and lease_expires_at > now())
            + (select count(*) from events where fast_path_destination_id = $1) as n`,
      [destinationId],
    );
    return row!.n === "0";
  }, "nothing in flight to the destination");
}

const statuses = async (db: { query: Query }, ids: string[]) =>
  (await db.query<{ status: string }>("select status from events where id = any($1::uuid[]) order by id", [ids])).map((row) => row.status);

async function auditOf(services: Services, actor: Actor, destinationId: string) {
  const { entries } = await runContract(auditContracts.listAuditLogContract, services, actor, auditContracts.listAuditLogContract.input.parse({ limit: 50 }));
  return entries.filter((entry) => entry.target?.id === destinationId).reverse();
}

describe("an exact circuit breaker", () => {
  test("pauses after N failed attempts with no more than N requests, probes once per resume, and drains once a probe is delivered; every surface says the same count", async ({
    services,
    user,
    database,
  }) => {
    const path = "/exact";
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "exact", destinationUrl: destination.url(path), pauseAfterFailures: 3 });
    const destinationId = (await listDestinations(services, { teamId: user.teamId, endpointId: endpoint.id }))[0]!.id;
    await createAlertRule(services, { teamId: user.teamId, name: "Paused", trigger: "destination_paused", channel: "webhook", target: `http://127.0.0.1:${channel.port}/paused` });
    const read = async () => (await listDestinations(services, { teamId: user.teamId, endpointId: endpoint.id }))[0]!;

    // The first failure: nothing else was under way, so nothing else may follow it but one send at a time.
    const first = await capture(services, endpoint.slug, "1");
    await waitFor(async () => (await statuses(database, [first]))[0] === "failed", "the first failure");
    expect(await read()).toMatchObject({ consecutiveFailures: 1, forwardingPaused: false });

    // A burst of 19 more: a backlog, sent one at a time until the third failure pauses the destination.
    const backlog = await Promise.all(Array.from({ length: 19 }, (_, n) => capture(services, endpoint.slug, String(n + 2))));
    await waitFor(async () => (await read()).forwardingPaused, "the breaker to trip");
    await settled(database, [services], destinationId);
    expect(destination.bodies(path)).toHaveLength(3);
    expect(destination.mostAtOnce).toBe(1);
    const reason = "3 consecutive failed attempts (last: destination answered 500)";
    expect(await read()).toMatchObject({ consecutiveFailures: 3, forwardingPaused: true, pausedReason: reason });
    await waitFor(() => alerts.length === 1, "the paused alert");
    expect(alerts[0]!.summary).toContain(reason);
    const paused = await auditOf(services, user.actor, destinationId);
    expect(paused.map((entry) => [entry.action, entry.actor.type])).toEqual([["destination.pause", "system"]]);
    expect(paused[0]!.changes).toMatchObject({ consecutive_failures: 3, pause_after_failures: 3, paused_reason: reason });

    // Resumed while it still fails: exactly one probe, the oldest waiting delivery, and paused again with the count one higher.
    await resumeDestination(services, { teamId: user.teamId, endpointId: endpoint.id, destinationId });
    await waitFor(async () => (await read()).forwardingPaused, "the probe to fail and pause it again");
    await settled(database, [services], destinationId);
    expect(destination.bodies(path)).toHaveLength(4);
    const again = "4 consecutive failed attempts (last: destination answered 500)";
    expect(await read()).toMatchObject({ consecutiveFailures: 4, pausedReason: again });
    await waitFor(() => alerts.length === 2, "the second paused alert");
    expect(alerts[1]!.summary).toContain(again);
    const trail = await auditOf(services, user.actor, destinationId);
    expect(trail.map((entry) => [entry.action, entry.changes?.consecutive_failures])).toEqual([
      ["destination.pause", 3],
      ["destination.resume", 3],
      ["destination.pause", 4],
    ]);
    // Oldest first, one at a time: the first event, the backlog's two oldest, then the probe (the oldest left).
    const sorted = [...backlog].sort();
    const bodyOf = async (id: string) => (await database.query<{ body: Buffer }>("select body from events where id = $1", [id]))[0]!.body.toString();
    expect(destination.bodies(path)).toEqual(["1", ...(await Promise.all(sorted.slice(0, 3).map(bodyOf)))]);

    // Recovered: the probe is delivered, the count goes back to 0, and the backlog flows.
    destination.healthy = true;
    await resumeDestination(services, { teamId: user.teamId, endpointId: endpoint.id, destinationId });
    await waitFor(async () => (await statuses(database, backlog)).filter((status) => status === "delivered").length === 16, "the backlog to drain");
    expect(await statuses(database, [first, ...sorted.slice(0, 3)])).toEqual(["failed", "failed", "failed", "failed"]);
    expect(destination.bodies(path)).toHaveLength(20);
    expect(await read()).toMatchObject({ consecutiveFailures: 0, forwardingPaused: false, pausedReason: null });
  });

  test("counts failed attempts, retries included: a retry policy does not let more than N requests through", async ({ services, user, database }) => {
    destination.healthy = false;
    destination.mostAtOnce = 0;
    const path = "/retries";
    const endpoint = await createEndpoint(services, {
      teamId: user.teamId,
      name: "with retries",
      destinationUrl: destination.url(path),
      retryPolicy: { maxAttempts: 3, initialDelayMs: 100, maxDelayMs: 200 },
      pauseAfterFailures: 3,
    });
    const destinationId = (await listDestinations(services, { teamId: user.teamId, endpointId: endpoint.id }))[0]!.id;
    const read = async () => (await listDestinations(services, { teamId: user.teamId, endpointId: endpoint.id }))[0]!;
    const first = await capture(services, endpoint.slug, "a");
    await waitFor(async () => (await read()).consecutiveFailures === 1, "the first failed attempt");
    const more = await Promise.all(["b", "c", "d", "e"].map((body) => capture(services, endpoint.slug, body)));
    await waitFor(async () => (await read()).forwardingPaused, "the breaker to trip");
    await settled(database, [services], destinationId);
    expect(destination.bodies(path)).toHaveLength(3);
    expect(destination.mostAtOnce).toBe(1);
    expect(await read()).toMatchObject({ consecutiveFailures: 3, pausedReason: "3 consecutive failed attempts (last: destination answered 500)" });
    // Nothing was given up: every event still waits (its retries, or its first attempt) for the resume.
    expect(await statuses(database, [first, ...more])).toEqual(Array(5).fill("pending"));
  });

  test("sends one at a time after a failure across instances: two servers on one database send no more than N", async ({ services, user, database, config }) => {
    destination.healthy = false;
    destination.mostAtOnce = 0;
    // Answers held a moment, so that sends running side by side would overlap at the destination.
    destination.holdMs = 40;
    const path = "/instances";
    const endpoint = await createEndpoint(services, { teamId: user.teamId, name: "two instances", destinationUrl: destination.url(path), pauseAfterFailures: 6 });
    const destinationId = (await listDestinations(services, { teamId: user.teamId, endpointId: endpoint.id }))[0]!.id;
    const read = async () => (await listDestinations(services, { teamId: user.teamId, endpointId: endpoint.id }))[0]!;
    try {
      await withServiceGraph(config, async (second) => {
        const first = await capture(services, endpoint.slug, "0");
        await waitFor(async () => (await statuses(database, [first]))[0] === "failed", "the first failure");
        // Captured on both instances at once: each may claim, but only one probe is out at a time.
        await Promise.all(Array.from({ length: 12 }, (_, n) => capture(n % 2 === 0 ? services : second, endpoint.slug, String(n + 1))));
        await waitFor(async () => (await read()).forwardingPaused, "the breaker to trip");
        await settled(database, [services, second], destinationId);
      });
    } finally {
      destination.holdMs = 0;
    }
    expect(destination.bodies(path)).toHaveLength(6);
    expect(destination.mostAtOnce).toBe(1);
    expect(await read()).toMatchObject({ consecutiveFailures: 6, pausedReason: "6 consecutive failed attempts (last: destination answered 500)" });
  });
});
