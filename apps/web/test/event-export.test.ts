import { request, type IncomingMessage } from "node:http";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DashboardClient } from "./dashboard-client.js";
import { startTestServer, type TestServer } from "./test-server.js";

const SEEDED = 50_000;
/** Most the server's heap may grow by while it streams an export of any size. */
const HEAP_GROWTH_BOUND = 64 * 1024 * 1024;

let t: TestServer;
let key: string;
let bulk: { id: string; slug: string };

async function api(path: string, init: RequestInit = {}) {
  return fetch(`${t.rehook.url}/api/v1${path}`, { ...init, headers: { authorization: `Bearer ${key}`, ...init.headers } });
}

// A full collection before each sample, so the samples measure what is alive, not garbage not yet collected.
setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;
const liveHeap = () => (gc(), process.memoryUsage().heapUsed);

/** Samples this process's live heap (the server runs in it) until stopped; returns the peak growth over the start. */
function sampleHeap(): { stop(): number } {
  const start = liveHeap();
  let peak = start;
  const timer = setInterval(() => (peak = Math.max(peak, liveHeap())), 1_000);
  return {
    stop() {
      clearInterval(timer);
      return peak - start;
    },
  };
}

/** Reads an NDJSON body line by line, parsing each and keeping none; returns how many there were. */
async function countLines(response: Response, check?: (line: Record<string, unknown>) => void): Promise<number> {
  let count = 0;
  let rest = "";
  const decoder = new TextDecoder();
  for await (const chunk of response.body!) {
    const lines = (rest + decoder.decode(chunk, { stream: true })).split("\n");
    rest = lines.pop()!;
    for (const line of lines) {
      const parsed = JSON.parse(line) as Record<string, unknown>;
      check?.(parsed);
      count += 1;
    }
  }
  expect(rest).toBe("");
  return count;
}

beforeAll(async () => {
  t = await startTestServer({ ALLOW_PRIVATE_DESTINATIONS: "true", API_RATE_LIMIT_PER_MINUTE: "1000" });
  const client = new DashboardClient(t.rehook.url);
  await client.postForm("/signup", { email: "export@example.com", password: "a long enough password" });
  key = ((await client.mutate("apiKeys.create", { name: "tests" })).body.result!.data.json as { key: string }).key;
  const created = await api("/endpoints", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ name: "bulk" }) });
  bulk = (await created.json()) as { id: string; slug: string };
  // 50,000 events of about 1 KiB in one statement, 5 ms apart, ids UUIDv7 of their times.
  await t.db.query(
    `insert into events (id, endpoint_id, received_at, method, path, query, headers, body, content_type, size_bytes, source, event_type, status)
     select (lpad(to_hex(b.ms), 12, '0') || '7' || substr(md5(b.g::text), 1, 3) || '8' || substr(md5(b.g::text), 4, 15))::uuid,
            $1::uuid, to_timestamp(b.ms / 1000.0), 'POST', '', '',
            json_build_array(json_build_array('content-type', 'application/json'), json_build_array('x-n', b.g::text)),
            b.body, 'application/json', octet_length(b.body), 'unknown', 'unknown', 'captured'
     from (select g, $2::bigint - g * 5 as ms, convert_to(format('{"n":%s,"pad":"%s"}', g, repeat('x', 1000)), 'UTF8') as body
           from generate_series(1, $3::int) g) b`,
    [bulk.id, Date.now() - 60_000, SEEDED],
  );
  await t.db.query("insert into event_counts (endpoint_id, status, n) values ($1, 'captured', $2)", [bulk.id, SEEDED]);
}, 120_000);
afterAll(async () => {
  await t.close();
});

// The export's formats, filters, scoping and errors are tested in packages/http/test
// (api-v1-events, event-export-route); here: a large export streams in flat memory over real sockets.
describe("GET /api/v1/events/export", () => {
  it(`streams ${SEEDED.toLocaleString("en-US")} events as NDJSON with flat memory`, async () => {
    const heap = sampleHeap();
    const response = await api(`/events/export?format=ndjson&endpoint_id=${bulk.id}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="rehook-events.ndjson"');
    let previous = "\uffff";
    const count = await countLines(response, (line) => {
      // Newest first, each whole.
      expect((line.id as string) < previous).toBe(true);
      previous = line.id as string;
      expect(JSON.parse(Buffer.from(line.body_base64 as string, "base64").toString("utf8")).pad).toHaveLength(1000);
    });
    const growth = heap.stop();
    expect(count).toBe(SEEDED);
    expect(growth).toBeLessThan(HEAP_GROWTH_BOUND);
  }, 180_000);

  it("waits for a client that stops reading instead of buffering the export", async () => {
    const heap = sampleHeap();
    const url = new URL(`${t.rehook.url}/api/v1/events/export?endpoint_id=${bulk.id}`);
    const response = await new Promise<IncomingMessage>((resolve, reject) =>
      request(url, { headers: { authorization: `Bearer ${key}` } }, resolve)
        .on("error", reject)
        .end(),
    );
    expect(response.statusCode).toBe(200);
    response.pause();
    // Paused: the socket's intake stops growing once the kernel's buffers are full.
    let last = -1;
    await expect
      .poll(
        () => {
          const read = response.socket.bytesRead;
          const settled = read === last;
          last = read;
          return settled;
        },
        { interval: 200, timeout: 30_000 },
      )
      .toBe(true);
    const total = SEEDED * 1400;
    // The server holds back most of the export: it is neither sent nor queued (past 8 MiB queued it would drop the client).
    expect(last).toBeLessThan(total / 4);
    expect(heap.stop()).toBeLessThan(HEAP_GROWTH_BOUND);
    // Resumed, every line arrives: the server waited instead of dropping or buffering.
    let lines = 0;
    let rest = "";
    response.setEncoding("utf8");
    for await (const chunk of response) {
      const parts = (rest + (chunk as string)).split("\n");
      rest = parts.pop()!;
      lines += parts.length;
    }
    expect(rest).toBe("");
    expect(lines).toBe(SEEDED);
  }, 180_000);
});

