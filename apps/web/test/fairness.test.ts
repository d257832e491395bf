import type { ServerResponse } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { head, rawRequest } from "./raw-http.js";
import { startTestServer, type TestServer } from "./test-server.js";

// A destination that hangs cannot take the delivery capacity of the others: it holds at most
// MAX_IN_FLIGHT_PER_ENDPOINT requests open, and other endpoints' events go out meanwhile.

const CAP = 4;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A destination that never answers, counting the requests it holds open (the sending side's in-flight count). */
async function hangingDestination() {
  const state = { open: 0, mostOpen: 0, unanswered: [] as ServerResponse[] };
  const sink = await startSink((_req, res) => {
    state.open += 1;
    state.mostOpen = Math.max(state.mostOpen, state.open);
    state.unanswered.push(res);
    res.on("close", () => (state.open -= 1));
  });
  cleanups.push(() => sink.close());
  return Object.assign(state, { sink, answerAll: () => state.unanswered.splice(0).forEach((res) => res.end("late")) });
}

async function okDestination(): Promise<Sink> {
  const sink = await startSink((_req, res) => res.end("ok"));
  cleanups.push(() => sink.close());
  return sink;
}

async function server(env: Record<string, string>): Promise<TestServer> {
  const t = await startTestServer({ ALLOW_PRIVATE_DESTINATIONS: "true", MAX_IN_FLIGHT_PER_ENDPOINT: String(CAP), ...env });
  cleanups.push(() => t.close());
  return t;
}

async function capture(t: TestServer, slug: string, count: number): Promise<void> {
  const body = Buffer.from("{}");
  await Promise.all(
    Array.from({ length: count }, async () => {
      const response = await rawRequest(t.rehook.url, [head("POST", `/api/webhook/${slug}`, [["Content-Length", String(body.length)]]), body]);
      expect(response.status).toBe(200);
    }),
  );
}

const countByStatus = async (t: TestServer, endpointId: string) =>
  Object.fromEntries(
    (await t.db.query<{ status: string; n: string }>("select status, count(*) as n from events where endpoint_id = $1 group by status", [endpointId])).map((row) => [
      row.status,
      Number(row.n),
    ]),
  );

describe("fair delivery between endpoints", () => {
  it("delivers another endpoint's events while a hanging destination holds only its cap of requests open", async () => {
    // The hanging requests never time out during the test: whatever is delivered went past them.
    const t = await server({ FORWARD_TIMEOUT_MS: "120000" });
    const hanging = await hangingDestination();
    const healthy = await okDestination();
    const stuck = await t.createEndpoint("stuck", `http://127.0.0.1:${hanging.sink.port}/`);
    const other = await t.createEndpoint("other", `http://127.0.0.1:${healthy.port}/`);
    cleanups.push(async () => hanging.answerAll());

    await capture(t, stuck.slug, 40);
    await waitFor(() => hanging.open === CAP, "the hanging destination to hold its cap");
    await capture(t, other.slug, 10);
    await waitFor(async () => (await countByStatus(t, other.id)).delivered === 10, "the other endpoint's events delivered");

    expect(hanging.open).toBe(CAP);
    expect(hanging.mostOpen).toBe(CAP);
    expect(hanging.sink.received).toHaveLength(CAP);
    expect(await countByStatus(t, stuck.id)).toEqual({ pending: 40 });
  });

  it("works a hanging destination's backlog through FORWARD_TIMEOUT_MS failures, never above the cap, without holding back the others", async () => {
    const t = await server({ FORWARD_TIMEOUT_MS: "300" });
    const hanging = await hangingDestination();
    const healthy = await okDestination();
    const stuck = await t.createEndpoint("stuck", `http://127.0.0.1:${hanging.sink.port}/`);
    const other = await t.createEndpoint("other", `http://127.0.0.1:${healthy.port}/`);

    await capture(t, stuck.slug, 3 * CAP);
    await capture(t, other.slug, 10);
    await waitFor(async () => (await countByStatus(t, other.id)).delivered === 10, "the other endpoint's events delivered");
    // Events that waited past their lease's send deadline went back to the database and were
    // claimed again: every one ends failed after a real attempt, within the cap throughout.
    await waitFor(async () => (await countByStatus(t, stuck.id)).failed === 3 * CAP, "every hanging event failed at the timeout", 60_000);
    const errors = await t.db.query<{ error: string }>("select distinct error from events where endpoint_id = $1", [stuck.id]);
    expect(errors).toEqual([{ error: "no complete answer within 300 ms" }]);
    expect(hanging.mostOpen).toBeLessThanOrEqual(CAP);
    expect(hanging.sink.received).toHaveLength(3 * CAP);
  });
});
