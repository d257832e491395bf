import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { passwordHashesRunning } from "@rehook/auth";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { DashboardClient } from "./dashboard-client.js";
import { startTestServer, type TestServer } from "./test-server.js";

// Password hashing (scrypt) and the delivery workers' DNS lookups share libuv's thread pool.
// A sign-up flood must not make another tenant's forwards wait behind the hashes.

let t: TestServer;
let sink: Sink;

beforeAll(async () => {
  t = await startTestServer({ ALLOW_PRIVATE_DESTINATIONS: "true", PASSWORD_HASH_CONCURRENCY: "2", SIGNUPS_PER_ADDRESS_PER_HOUR: "1000" });
  // Connection: close, so every forward opens a new connection and resolves the name again.
  sink = await startSink((_req, res) => {
    res.writeHead(200, { connection: "close", "content-type": "text/plain" });
    res.end("ok");
  });
});
afterAll(async () => {
  await sink.close();
  await t.close();
});

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

describe("password hashing has its own bounded concurrency", () => {
  it("keeps another tenant's forward latency while 24 sign-ups hash their passwords", async () => {
    const endpoint = await t.createEndpoint("latency", `http://localhost:${sink.port}/hook`);
    const forwardOnce = async () => {
      const before = sink.received.length;
      const started = performance.now();
      const response = await fetch(`${t.rehook.url}/api/webhook/${endpoint.slug}`, { method: "POST", body: "{}" });
      expect(response.status).toBe(200);
      await waitFor(() => sink.received.length > before, "the forward");
      return performance.now() - started;
    };
    const quiet: number[] = [];
    for (let i = 0; i < 5; i += 1) quiet.push(await forwardOnce());

    let peakHashes = 0;
    const flood = Promise.all(
      Array.from({ length: 24 }, (_, i) =>
        new DashboardClient(t.rehook.url).mutate("auth.signUp", { email: `flood-${i}@example.com`, password: "a long enough password" }).then((answer) => {
          peakHashes = Math.max(peakHashes, passwordHashesRunning());
          return answer.status;
        }),
      ),
    );
    await waitFor(() => passwordHashesRunning() > 0, "the flood to start hashing");
    const busy: number[] = [];
    for (let i = 0; i < 8; i += 1) busy.push(await forwardOnce());
    const stillHashing = passwordHashesRunning() > 0;
    const statuses = await flood;

    expect(stillHashing, "the flood outlasted the measured forwards").toBe(true);
    expect(peakHashes).toBeLessThanOrEqual(2);
    // Every sign-up was served (the queue is bounded, but 24 fit), none failed.
    expect(statuses.every((status) => status === 200)).toBe(true);
    // Quiet forwards take a few ms here; behind 24 queued hashes a name lookup would wait seconds.
    expect(Math.max(...busy), `quiet median ${median(quiet).toFixed(0)} ms, busy ${busy.map((ms) => ms.toFixed(0)).join(", ")} ms`).toBeLessThan(1_000);
  }, 120_000);
});
