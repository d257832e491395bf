import { createServer, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { silentLogger } from "@rehook/core";
import { parsePromText } from "@rehook/vitest-config/prometheus-text";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { Buckets, createCaptureHandler, createMetricsHandler, PENDING_CACHE_MS, RehookMetrics } from "../src/index.js";
import { defaultBodies } from "./default-bodies.js";

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const scrape = async (metrics: RehookMetrics) => parsePromText(await metrics.text());

describe("Buckets", () => {
  it("puts a value equal to a bound in that bound's bucket and one above the last bound in +Inf only", () => {
    const buckets = new Buckets([1, 5]);
    for (const value of [0, 1, 1.0001, 5, 6]) buckets.observe(value);
    expect([...buckets.counts]).toEqual([2, 2, 1]);
    expect(buckets.count).toBe(5);
    expect(buckets.sum).toBeCloseTo(13.0001);
  });
});

describe("RehookMetrics", () => {
  it("reports exactly what it was told, as histograms whose buckets add up", async () => {
    const metrics = new RehookMetrics({ defaultMetrics: false });
    for (let i = 0; i < 7; i += 1) metrics.captureStored(0.002);
    metrics.captureRejected("payload_too_large", 0.0001);
    metrics.captureRejected("payload_too_large", 20);
    metrics.captureBatch(3);
    metrics.captureBatch(4);
    metrics.deliveryAttempt("delivered", 0.03);
    metrics.deliveryAttempt("failed", 1);
    metrics.deliveryAttempt("failed", 400);
    metrics.chatPost("retry");
    const text = await scrape(metrics);
    expect(text.value("rehook_events_captured_total", { outcome: "stored" })).toBe(7);
    expect(text.value("rehook_events_captured_total", { outcome: "rejected", reason: "payload_too_large" })).toBe(2);
    expect(text.value("rehook_events_captured_total", { outcome: "rejected", reason: "not_found" })).toBe(0);
    expect(text.value("rehook_capture_duration_seconds_count", { outcome: "stored" })).toBe(7);
    expect(text.value("rehook_capture_duration_seconds_bucket", { outcome: "stored", le: "0.001" })).toBe(0);
    expect(text.value("rehook_capture_duration_seconds_bucket", { outcome: "stored", le: "0.0025" })).toBe(7);
    expect(text.value("rehook_capture_duration_seconds_bucket", { outcome: "rejected", le: "10" })).toBe(1);
    expect(text.value("rehook_capture_duration_seconds_bucket", { outcome: "rejected", le: "+Inf" })).toBe(2);
    expect(text.value("rehook_capture_batch_rows_sum")).toBe(7);
    expect(text.value("rehook_capture_batch_rows_count")).toBe(2);
    expect(text.value("rehook_deliveries_total", { outcome: "delivered" })).toBe(1);
    expect(text.value("rehook_deliveries_total", { outcome: "failed" })).toBe(2);
    expect(text.value("rehook_delivery_duration_seconds_bucket", { outcome: "failed", le: "300" })).toBe(1);
    expect(text.value("rehook_delivery_duration_seconds_count", { outcome: "failed" })).toBe(2);
    expect(text.value("rehook_chat_posts_total", { result: "retry" })).toBe(1);
    expect(text.types.get("rehook_deliveries_total")).toBe("counter");
    expect(text.types.get("rehook_delivery_duration_seconds")).toBe("histogram");
    // Without sources, the read-at-scrape metrics are not there at all.
    expect(text.types.has("rehook_pending_events")).toBe(false);
    expect(text.types.has("rehook_db_pool_connections")).toBe(false);
  });

  it("keeps each server's numbers apart, with the process and Node metrics in each scrape", async () => {
    const one = new RehookMetrics();
    const two = new RehookMetrics();
    one.captureStored(0.001);
    expect((await scrape(one)).value("rehook_events_captured_total", { outcome: "stored" })).toBe(1);
    const other = await scrape(two);
    expect(other.value("rehook_events_captured_total", { outcome: "stored" })).toBe(0);
    for (const name of ["nodejs_eventloop_lag_seconds", "nodejs_heap_size_used_bytes", "process_cpu_seconds_total"]) {
      expect(other.types.has(name), name).toBe(true);
    }
    // Each series once, each family's TYPE once.
    const keys = other.samples.map((sample) => `${sample.name}${JSON.stringify(sample.labels)}`);
    expect(new Set(keys).size).toBe(keys.length);
    const typeLines = (await two.text()).split("\n").filter((line) => line.startsWith("# TYPE "));
    expect(new Set(typeLines).size).toBe(typeLines.length);
  });

  it("reads the pending events at most once per cache period, and leaves the gauge out when the read fails", async () => {
    let reads = 0;
    let fail = false;
    const metrics = new RehookMetrics({
      defaultMetrics: false,
      logger: silentLogger,
      pendingEvents: async () => {
        reads += 1;
        if (fail) throw new Error("database down");
        return 12;
      },
      pools: () => [
        { pool: "capture", stats: { inUse: 2, idle: 3, waiting: 1, max: 10 } },
        { pool: "orm", stats: undefined },
      ],
    });
    const [first, second] = await Promise.all([scrape(metrics), scrape(metrics)]);
    expect(first.value("rehook_pending_events")).toBe(12);
    expect(second.value("rehook_pending_events")).toBe(12);
    expect((await scrape(metrics)).value("rehook_pending_events")).toBe(12);
    expect(reads).toBe(1);
    expect(first.value("rehook_db_pool_connections", { pool: "capture", state: "in_use" })).toBe(2);
    expect(first.value("rehook_db_pool_connections", { pool: "capture", state: "idle" })).toBe(3);
    expect(first.value("rehook_db_pool_waiting", { pool: "capture" })).toBe(1);
    expect(first.value("rehook_db_pool_max_connections", { pool: "capture" })).toBe(10);
    expect(first.samples.some((sample) => sample.labels.pool === "orm")).toBe(false);

    fail = true;
    await new Promise((resolve) => setTimeout(resolve, PENDING_CACHE_MS + 50));
    const failed = await scrape(metrics);
    expect(reads).toBe(2);
    expect(failed.types.has("rehook_pending_events")).toBe(true);
    expect(failed.value("rehook_pending_events")).toBeUndefined();
  }, 15_000);
});

describe("GET /metrics", () => {
  it("answers the text format, and with a token only to a request bearing it", async () => {
    const metrics = new RehookMetrics({ defaultMetrics: false });
    const url = await serve((req, res) => void createMetricsHandler(metrics, { token: "a-token-of-sixteen+" })(req, res));
    const refused = await fetch(url);
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toMatch(/^Bearer /);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
    for (const authorization of ["Bearer a-token-of-sixteen", "Bearer a-token-of-sixteen++", "Basic a-token-of-sixteen+", "a-token-of-sixteen+", "Bearer"]) {
      expect((await fetch(url, { headers: { authorization } })).status, authorization).toBe(401);
    }
    const ok = await fetch(url, { headers: { authorization: "Bearer a-token-of-sixteen+" } });
    expect(ok.status).toBe(200);
    expect(ok.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    expect(parsePromText(await ok.text()).value("rehook_events_captured_total", { outcome: "stored" })).toBe(0);
    expect((await fetch(url, { headers: { authorization: "bearer a-token-of-sixteen+" } })).status).toBe(200);
    const head = await fetch(url, { method: "HEAD", headers: { authorization: "Bearer a-token-of-sixteen+" } });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
    const post = await fetch(url, { method: "POST" });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET, HEAD");
  });
});

describe("the capture handler's counts", () => {
  it("counts a database failure as rejected (unavailable) and a sender that hangs up mid-body as rejected (aborted)", async () => {
    const metrics = new RehookMetrics({ defaultMetrics: false });
    const handler = createCaptureHandler({
      bodies: defaultBodies(),
      capture: async () => {
        throw new Error("connection refused");
      },
      maxPayloadBytes: 1024,
      maxHeaderCount: 50,
      trustedProxyHops: 0,
      logger: silentLogger,
      metrics,
    });
    const url = await serve((req, res) => void handler(req, res));
    const refused = await fetch(`${url}/api/webhook/some-endpoint-abcdefgh`, { method: "POST", body: "{}" });
    expect(refused.status).toBe(503);

    const { port } = new URL(url);
    const socket = connect(Number(port), "127.0.0.1");
    await new Promise<void>((resolve) => socket.on("connect", resolve));
    socket.write("POST /api/webhook/some-endpoint-abcdefgh HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n0123456789");
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    await waitFor(async () => (await scrape(metrics)).value("rehook_events_captured_total", { outcome: "rejected", reason: "aborted" }) === 1, "the aborted capture to be counted");

    const text = await scrape(metrics);
    expect(text.value("rehook_events_captured_total", { outcome: "rejected", reason: "unavailable" })).toBe(1);
    expect(text.value("rehook_events_captured_total", { outcome: "stored" })).toBe(0);
    expect(text.value("rehook_capture_duration_seconds_count", { outcome: "rejected" })).toBe(2);
  });
});
