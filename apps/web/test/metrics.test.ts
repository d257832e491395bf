import type { IncomingMessage } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { saveNotificationSettings } from "@rehook/services";
import { parsePromText, type PromText } from "@rehook/vitest-config/prometheus-text";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { head, rawRequest } from "./raw-http.js";
import { startTestServer, type TestServer } from "./test-server.js";

let t: TestServer;
let delivered: Sink;
let failing: Sink;
let chat: Sink;
const servers: TestServer[] = [];

beforeAll(async () => {
  delivered = await startSink((_req, res) => res.end("ok"));
  failing = await startSink((_req, res) => {
    res.statusCode = 500;
    res.end("broken");
  });
  chat = await startSink((_req: IncomingMessage, res) => res.end("ok"));
  t = await startTestServer({
    ALLOW_PRIVATE_DESTINATIONS: "true",
    FORWARD_TIMEOUT_MS: "5000",
    MAX_PAYLOAD_BYTES: "1024",
    MAX_HEADER_COUNT: "30",
    CHAT_HOOKS_BASE: `http://127.0.0.1:${chat.port}/services`,
  });
});
afterAll(async () => {
  await Promise.all([t, ...servers].map((server) => server.close()));
  await Promise.all([delivered, failing, chat].map((sink) => sink.close()));
});

async function scrape(url = t.rehook.url, authorization?: string): Promise<PromText> {
  const response = await fetch(`${url}/metrics`, authorization ? { headers: { authorization } } : {});
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
  return parsePromText(await response.text());
}

/** The change of every rehook_* sample between two scrapes (samples absent before count from 0). */
function delta(before: PromText, after: PromText) {
  return (name: string, labels: Record<string, string> = {}) => (after.value(name, labels) ?? 0) - (before.value(name, labels) ?? 0);
}

const post = (slug: string, body = '{"type":"invoice.paid"}', url = t.rehook.url) =>
  fetch(`${url}/api/webhook/${slug}`, { method: "POST", body, headers: { "content-type": "application/json" } });

describe("GET /metrics", () => {
  it("counts exactly the captures stored and rejected, the deliveries by outcome, their durations, batches and chat posts", async () => {
    const captureOnly = await t.createEndpoint("metrics capture only");
    const ok = await t.createEndpoint("metrics ok", `http://127.0.0.1:${delivered.port}/in`);
    const broken = await t.createEndpoint("metrics broken", `http://127.0.0.1:${failing.port}/in`);
    const ctx = { orm: t.rehook.database.orm, chatHooksBase: `http://127.0.0.1:${chat.port}/services` };
    await saveNotificationSettings(ctx, { teamId: t.teamId, enabled: true, webhookUrl: `http://127.0.0.1:${chat.port}/services/T1/B1/x`, triggers: ["failed"] });
    const before = await scrape();

    // 12 stored, at once (so some share a group-commit statement): 5 kept, 4 delivered, 3 failed.
    const slugs = [...Array(5).fill(captureOnly.slug), ...Array(4).fill(ok.slug), ...Array(3).fill(broken.slug)] as string[];
    const answers = await Promise.all(slugs.map((slug) => post(slug)));
    expect(answers.map((answer) => answer.status)).toEqual(Array(12).fill(200));
    // 6 rejected: two unknown slugs (looked up before their bodies), a slug no endpoint can have,
    // a body over MAX_PAYLOAD_BYTES, too many headers, and a ".." segment.
    const unknown = `${captureOnly.slug.slice(0, -8)}zzzzzzzz`;
    expect((await post(unknown)).status).toBe(404);
    expect((await post(`${unknown}/sub`)).status).toBe(404);
    expect((await post("Not_A_Slug")).status).toBe(404);
    const large = Buffer.alloc(2048, 0x61);
    expect((await rawRequest(t.rehook.url, [head("POST", `/api/webhook/${captureOnly.slug}`, [["Content-Length", String(large.length)]]), large])).status).toBe(413);
    const many: Array<[string, string]> = Array.from({ length: 40 }, (_, i) => [`X-H${i}`, "1"]);
    expect((await rawRequest(t.rehook.url, [head("POST", `/api/webhook/${captureOnly.slug}`, [...many, ["Content-Length", "0"]])])).status).toBe(431);
    expect((await rawRequest(t.rehook.url, [head("POST", `/api/webhook/${captureOnly.slug}/a/../b`, [["Content-Length", "0"]])])).status).toBe(400);

    // Every result stored, and every chat notification of the 3 failures posted.
    await waitFor(async () => {
      const text = await scrape();
      const d = delta(before, text);
      return d("rehook_deliveries_total", { outcome: "delivered" }) === 4 && d("rehook_deliveries_total", { outcome: "failed" }) === 3;
    }, "the 7 delivery results to be counted");
    await waitFor(async () => (await t.db.query<{ n: string }>("select count(*) as n from notification_outbox"))[0]!.n === "0", "the chat notifications to be posted");
    await new Promise((resolve) => setTimeout(resolve, 300)); // anything counted late would show now
    const after = await scrape();
    const d = delta(before, after);

    expect(delivered.received).toHaveLength(4);
    expect(failing.received).toHaveLength(3);
    expect(d("rehook_events_captured_total", { outcome: "stored" })).toBe(12);
    expect(d("rehook_events_captured_total", { outcome: "rejected", reason: "not_found" })).toBe(3);
    expect(d("rehook_events_captured_total", { outcome: "rejected", reason: "payload_too_large" })).toBe(1);
    expect(d("rehook_events_captured_total", { outcome: "rejected", reason: "headers_too_large" })).toBe(1);
    expect(d("rehook_events_captured_total", { outcome: "rejected", reason: "bad_request" })).toBe(1);
    expect(d("rehook_events_captured_total", { outcome: "rejected", reason: "unavailable" })).toBe(0);
    expect(d("rehook_events_captured_total", { outcome: "rejected", reason: "aborted" })).toBe(0);
    expect(d("rehook_capture_duration_seconds_count", { outcome: "stored" })).toBe(12);
    expect(d("rehook_capture_duration_seconds_bucket", { outcome: "stored", le: "+Inf" })).toBe(12);
    expect(d("rehook_capture_duration_seconds_count", { outcome: "rejected" })).toBe(6);
    expect(d("rehook_capture_duration_seconds_sum", { outcome: "stored" })).toBeGreaterThan(0);
    // Each of the 12 stored went through one statement; the unknown slugs never reached one.
    expect(d("rehook_capture_batch_rows_sum")).toBe(12);
    expect(d("rehook_capture_batch_rows_count")).toBeGreaterThanOrEqual(1);
    expect(d("rehook_capture_batch_rows_count")).toBeLessThanOrEqual(12);
    expect(d("rehook_deliveries_total", { outcome: "delivered" })).toBe(4);
    expect(d("rehook_deliveries_total", { outcome: "failed" })).toBe(3);
    expect(d("rehook_delivery_duration_seconds_count", { outcome: "delivered" })).toBe(4);
    expect(d("rehook_delivery_duration_seconds_count", { outcome: "failed" })).toBe(3);
    expect(d("rehook_delivery_duration_seconds_bucket", { outcome: "failed", le: "+Inf" })).toBe(3);
    // One post per notification, or fewer when they were folded into a summary: the count is the posts made.
    expect(chat.received.length).toBeGreaterThanOrEqual(1);
    expect(d("rehook_chat_posts_total", { result: "posted" })).toBe(chat.received.length);
    for (const result of ["retry", "give_up", "rejected", "pause"]) expect(d("rehook_chat_posts_total", { result })).toBe(0);

    // Bounded labels: nothing per endpoint or event, only the fixed label values.
    const text = await (await fetch(`${t.rehook.url}/metrics`)).text();
    for (const endpoint of [captureOnly, ok, broken]) {
      expect(text).not.toContain(endpoint.slug);
      expect(text).not.toContain(endpoint.id);
    }
    const labelNames = new Set(after.samples.filter((s) => s.name.startsWith("rehook_")).flatMap((s) => Object.keys(s.labels)));
    expect([...labelNames].sort()).toEqual(["le", "outcome", "pool", "reason", "result", "state"]);
  });

  it("reads the pending events from event_counts, and the database pools", async () => {
    const paused = await t.createEndpoint("metrics paused", `http://127.0.0.1:${delivered.port}/in`);
    // A paused endpoint's events wait as pending until it is resumed.
    await t.db.query("update destinations set forwarding_paused_at = now(), paused_reason = 'test' where endpoint_id = $1", [paused.id]);
    const before = (await scrape()).value("rehook_pending_events");
    expect(before).toBeGreaterThanOrEqual(0);
    for (let i = 0; i < 3; i += 1) expect((await post(paused.slug)).status).toBe(200);
    // The count is read at most every 5 s.
    await waitFor(async () => (await scrape()).value("rehook_pending_events") === before! + 3, "the 3 pending events to be counted");

    const text = await scrape();
    expect(text.types.get("rehook_pending_events")).toBe("gauge");
    expect(text.value("rehook_db_pool_max_connections", { pool: "capture" })).toBe(10);
    expect(text.value("rehook_db_pool_max_connections", { pool: "orm" })).toBe(5);
    for (const pool of ["capture", "orm"]) {
      expect(text.value("rehook_db_pool_connections", { pool, state: "in_use" })).toBeGreaterThanOrEqual(0);
      expect(text.value("rehook_db_pool_connections", { pool, state: "idle" })).toBeGreaterThanOrEqual(0);
      expect(text.value("rehook_db_pool_waiting", { pool })).toBeGreaterThanOrEqual(0);
    }
    // The pool has served this server's statements: it has connections open.
    const open = text.value("rehook_db_pool_connections", { pool: "capture", state: "in_use" })! + text.value("rehook_db_pool_connections", { pool: "capture", state: "idle" })!;
    expect(open).toBeGreaterThan(0);
    // The runtime's own: event-loop lag, heap, CPU, memory.
    for (const name of ["nodejs_eventloop_lag_seconds", "nodejs_heap_size_used_bytes", "process_cpu_seconds_total", "process_resident_memory_bytes"]) {
      expect(text.samples.some((sample) => sample.name === name), name).toBe(true);
    }
  });

  it("with METRICS_TOKEN, answers 401 in the JSON error shape unless the request bears the token", async () => {
    const token = "metrics-token-0123456789abcdef";
    const s = await startTestServer({ METRICS_TOKEN: token });
    servers.push(s);
    for (const headers of [{} as Record<string, string>, { authorization: "Bearer wrong-token-0123456789abcdef" }, { authorization: `Basic ${token}` }, { authorization: `Bearer ${token}x` }]) {
      const refused = await fetch(`${s.rehook.url}/metrics`, { headers });
      expect(refused.status).toBe(401);
      expect(refused.headers.get("www-authenticate")).toBe('Bearer realm="rehook-metrics"');
      expect(await refused.json()).toEqual({ error: { code: "unauthorized", message: expect.stringContaining("METRICS_TOKEN") } });
    }
    const endpoint = await s.createEndpoint("token");
    expect((await post(endpoint.slug, "{}", s.rehook.url)).status).toBe(200);
    expect((await scrape(s.rehook.url, `Bearer ${token}`)).value("rehook_events_captured_total", { outcome: "stored" })).toBe(1);
  });

  it("with METRICS_PORT, serves /metrics on that port only (bound to HOST), and 404 on PORT", async () => {
    const s = await startTestServer({ METRICS_PORT: "0" });
    servers.push(s);
    expect(s.rehook.metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(s.rehook.metricsUrl).not.toBe(s.rehook.url);
    const onMain = await fetch(`${s.rehook.url}/metrics`);
    expect(onMain.status).toBe(404);
    expect(((await onMain.json()) as { error: { code: string } }).error.code).toBe("not_found");
    for (const path of ["/", "/healthz", "/metrics/", "/api/webhook/x-abcdefgh"]) {
      const other = await fetch(`${s.rehook.metricsUrl}${path}`, { method: path.startsWith("/api") ? "POST" : "GET" });
      expect(other.status, path).toBe(404);
      await other.arrayBuffer();
    }
    const endpoint = await s.createEndpoint("port");
    expect((await post(endpoint.slug, "{}", s.rehook.url)).status).toBe(200);
    expect((await scrape(s.rehook.metricsUrl)).value("rehook_events_captured_total", { outcome: "stored" })).toBe(1);
  });

  it("with METRICS_ENABLED=false, has no /metrics and still captures", async () => {
    const s = await startTestServer({ METRICS_ENABLED: "false" });
    servers.push(s);
    const response = await fetch(`${s.rehook.url}/metrics`);
    expect(response.status).toBe(404);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("not_found");
    const endpoint = await s.createEndpoint("off");
    expect((await post(endpoint.slug, "{}", s.rehook.url)).status).toBe(200);
  });
});
