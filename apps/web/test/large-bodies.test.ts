import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { gzipSync } from "node:zlib";
import type { AddressInfo } from "node:net";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uuidv7 } from "@rehook/core";
import { MAX_RUNNING_BULK_REPLAYS_PER_TEAM, PAYLOAD_PREVIEW_BYTES } from "@rehook/services";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { DashboardClient, type TrpcEnvelope } from "./dashboard-client.js";
import { startStreamInstance, type StreamInstance } from "./stream-instance.js";
import { startTestServer, type TestServer } from "./test-server.js";

const MiB = 1024 * 1024;
let t: TestServer;
let instance: StreamInstance;

/** A loopback destination that keeps only a digest of each body (the bodies here add up to 200 MiB). */
interface DigestSink {
  url: string;
  received: Array<{ path: string; length: number; sha256: string }>;
  /** While held, requests wait for release() before they are answered. */
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

async function startDigestSink(): Promise<DigestSink> {
  const received: DigestSink["received"] = [];
  let held: Array<() => void> | null = null;
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const hash = createHash("sha256");
    let length = 0;
    req.on("data", (chunk: Buffer) => {
      hash.update(chunk);
      length += chunk.length;
    });
    req.on("end", () => {
      received.push({ path: req.url ?? "", length, sha256: hash.digest("hex") });
      const answer = () => res.end("ok");
      if (held) held.push(answer);
      else answer();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    hold: () => (held = []),
    release() {
      const waiting = held ?? [];
      held = null;
      for (const answer of waiting) answer();
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

let sink: DigestSink;

interface Account {
  client: DashboardClient;
  key: string;
  endpoint: { id: string; slug: string };
}

async function account(email: string): Promise<Account> {
  const client = new DashboardClient(t.rehook.url);
  await client.postForm("/signup", { email, password: "a long enough password" });
  const key = ((await client.mutate("apiKeys.create", { name: "bodies" })).body.result!.data.json as { key: string }).key;
  const endpoint = (await client.mutate("endpoints.create", { name: `${email} bodies` })).body.result!.data.json as { id: string; slug: string };
  return { client, key, endpoint };
}

async function capture(slug: string, body: Buffer, contentType = "application/octet-stream"): Promise<string> {
  const response = await fetch(`${t.rehook.url}/api/webhook/${slug}`, { method: "POST", headers: { "content-type": contentType }, body });
  expect(response.status).toBe(200);
  return ((await response.json()) as { eventId: string }).eventId;
}

const data = <T>(answer: { body: TrpcEnvelope }): T => answer.body.result!.data.json as T;
const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

let a: Account;
let b: Account;

beforeAll(async () => {
  t = await startTestServer({ ALLOW_PRIVATE_DESTINATIONS: "true" });
  instance = await startStreamInstance(t, {});
  sink = await startDigestSink();
  a = await account("bodies-a@example.com");
  b = await account("bodies-b@example.com");
});
afterAll(async () => {
  await instance.close();
  await sink.close();
  await t.close();
});

describe("a large body is shown as a preview and downloaded raw", () => {
  let eventId = "";
  const body = randomBytes(10 * MiB);

  it("events.get and GET /api/v1/events/{id} carry at most the preview, with the whole size", async () => {
    eventId = await capture(a.endpoint.slug, body);
    const event = data<{ payload: { kind: string; hex: string; size: number }; bodyTruncated: boolean; bodyPreviewBytes: number; sizeBytes: number; curl: string }>(
      await a.client.query("events.get", { id: eventId }),
    );
    expect(event).toMatchObject({ bodyTruncated: true, sizeBytes: 10 * MiB });
    expect(event.bodyPreviewBytes).toBeLessThanOrEqual(PAYLOAD_PREVIEW_BYTES);
    expect(event.payload).toMatchObject({ kind: "binary", size: event.bodyPreviewBytes });
    // The command sends the downloaded file: a cut body would be a different request.
    expect(event.curl).toContain(`--data-binary @event-${eventId}.bin`);

    const response = await fetch(`${t.rehook.url}/api/v1/events/${eventId}`, { headers: { authorization: `Bearer ${a.key}` } });
    const text = await response.text();
    expect(text.length).toBeLessThan(PAYLOAD_PREVIEW_BYTES * 2);
    const json = JSON.parse(text) as { payload: string; payload_encoding: string; payload_truncated: boolean; size_bytes: number };
    expect(json).toMatchObject({ payload_encoding: "base64", payload_truncated: true, size_bytes: 10 * MiB });
    // The preview may stop up to 3 bytes short, where random bytes look like a cut UTF-8 character.
    const preview = Buffer.from(json.payload, "base64");
    expect(preview.length).toBeGreaterThanOrEqual(PAYLOAD_PREVIEW_BYTES - 3);
    expect(preview.length).toBeLessThanOrEqual(PAYLOAD_PREVIEW_BYTES);
    expect(body.subarray(0, preview.length).equals(preview)).toBe(true);
  });

  it("a text preview is cut before a split character, so it stays text", async () => {
    const text = JSON.stringify({ note: "é".repeat(400_000) });
    const id = await capture(a.endpoint.slug, Buffer.from(text), "application/json");
    const event = data<{ payload: { kind: string; text: string }; bodyTruncated: boolean; bodyPreviewBytes: number }>(await a.client.query("events.get", { id }));
    expect(event.bodyTruncated).toBe(true);
    expect(event.payload.kind).toBe("text");
    expect(event.bodyPreviewBytes).toBeGreaterThan(PAYLOAD_PREVIEW_BYTES - 4);
    expect(text.startsWith(event.payload.text)).toBe(true);
    const small = data<{ bodyTruncated: boolean; payload: { kind: string } }>(await a.client.query("events.get", { id: await capture(a.endpoint.slug, Buffer.from('{"a":1}'), "application/json") }));
    expect(small).toMatchObject({ bodyTruncated: false, payload: { kind: "json" } });
  });

  it("GET /api/v1/events/{id}/body answers every byte as an attachment; another user's id is 404", async () => {
    const response = await fetch(`${t.rehook.url}/api/v1/events/${eventId}/body`, { headers: { authorization: `Bearer ${a.key}` } });
    expect(response.status).toBe(200);
    expect(Object.fromEntries(response.headers)).toMatchObject({
      "content-type": "application/octet-stream",
      "content-length": String(10 * MiB),
      "content-disposition": `attachment; filename="event-${eventId}.bin"`,
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
      "rehook-api-version": "v1",
    });
    expect(sha256(Buffer.from(await response.arrayBuffer()))).toBe(sha256(body));
    const foreign = await fetch(`${t.rehook.url}/api/v1/events/${eventId}/body`, { headers: { authorization: `Bearer ${b.key}` } });
    expect(foreign.status).toBe(404);
    expect(((await foreign.json()) as { error: { code: string } }).error.code).toBe("not_found");
    const document = (await (await fetch(`${t.rehook.url}/api/v1/openapi.json`)).json()) as { paths: Record<string, { get: { responses: Record<string, { content?: Record<string, unknown> }> } }> };
    expect(Object.keys(document.paths["/events/{id}/body"]!.get.responses["200"]!.content!)).toEqual(["application/octet-stream"]);
  });

  it("GET /api/events/{id}/body (the dashboard's session) answers every byte; no session 401, another user 404", async () => {
    const url = `${instance.url}/api/events/${eventId}/body`;
    const response = await fetch(url, { headers: { cookie: a.client.cookie! } });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-disposition")).toBe(`attachment; filename="event-${eventId}.bin"`);
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("cache-control")).toBe("no-store");
    expect(response.headers.get("content-type")).toBe("application/octet-stream");
    expect(response.headers.get("content-length")).toBe(String(10 * MiB));
    expect(sha256(Buffer.from(await response.arrayBuffer()))).toBe(sha256(body));
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { cookie: b.client.cookie! } })).status).toBe(404);
    expect((await fetch(url, { method: "POST", headers: { cookie: a.client.cookie! } })).status).toBe(405);
  });
});

describe("the event page's raw download, over real HTTP", () => {
  async function download(id: string, method = "GET") {
    const response = await fetch(`${instance.url}/api/events/${id}/body`, { method, headers: { cookie: a.client.cookie! } });
    expect(response.status).toBe(200);
    return { headers: Object.fromEntries(response.headers), bytes: Buffer.from(await response.arrayBuffer()) };
  }

  it("answers the stored bytes exactly, as an attachment named after the stored Content-Type", async () => {
    // Bytes a lenient decoder would change: a byte order mark, CRLF, invalid UTF-8.
    const body = Buffer.concat([Buffer.from('\uFEFF{"note": "héllo"}\r\n'), Buffer.from([0xff, 0xfe, 0x00])]);
    const id = await capture(a.endpoint.slug, body, "application/json; charset=utf-8");
    const { headers, bytes } = await download(id);
    expect(headers).toMatchObject({
      "content-type": "application/json; charset=utf-8",
      "content-length": String(body.length),
      "content-disposition": `attachment; filename="event-${id}.json"`,
      "x-content-type-options": "nosniff",
      "cache-control": "no-store",
      "content-security-policy": "default-src 'none'; sandbox",
    });
    expect(bytes.equals(body)).toBe(true);
    // HEAD: the same headers, no body.
    const head = await download(id, "HEAD");
    expect(head.headers).toMatchObject({ "content-type": "application/json; charset=utf-8", "content-length": String(body.length) });
    expect(head.bytes.length).toBe(0);
    // events.get names the same file (the curl command of a cut body reads it).
    expect(data<{ bodyFileName: string }>(await a.client.query("events.get", { id })).bodyFileName).toBe(`event-${id}.json`);
  });

  it("answers application/octet-stream without a Content-Type, and for script or stylesheet types", async () => {
    const response = await fetch(`${t.rehook.url}/api/webhook/${a.endpoint.slug}`, { method: "POST", body: new Uint8Array([1, 2, 3]) });
    const { eventId } = (await response.json()) as { eventId: string };
    expect((await t.db.query<{ content_type: string | null }>("select content_type from events where id = $1", [eventId]))[0]!.content_type).toBeNull();
    const none = await download(eventId);
    expect(none.headers).toMatchObject({ "content-type": "application/octet-stream", "content-disposition": `attachment; filename="event-${eventId}.bin"` });
    expect([...none.bytes]).toEqual([1, 2, 3]);
    for (const type of ["application/javascript", "text/javascript; charset=utf-8", "text/css"]) {
      const id = await capture(a.endpoint.slug, Buffer.from("alert(document.cookie)"), type);
      const { headers, bytes } = await download(id);
      expect(headers["content-type"], type).toBe("application/octet-stream");
      expect(headers["x-content-type-options"]).toBe("nosniff");
      expect(bytes.toString()).toBe("alert(document.cookie)");
    }
  });

  it("answers a compressed body still compressed, without a Content-Encoding, named .gz", async () => {
    const json = JSON.stringify({ type: "push", padding: "x".repeat(5000) });
    const gzip = gzipSync(json);
    const response = await fetch(`${t.rehook.url}/api/webhook/${a.endpoint.slug}`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-encoding": "gzip" },
      body: gzip,
    });
    const { eventId } = (await response.json()) as { eventId: string };
    const { headers, bytes } = await download(eventId);
    expect(headers["content-encoding"]).toBeUndefined();
    expect(headers).toMatchObject({ "content-type": "application/json", "content-disposition": `attachment; filename="event-${eventId}.json.gz"`, "content-length": String(gzip.length) });
    expect(bytes.equals(gzip)).toBe(true);
    // The event page sees it decoded.
    const event = data<{ body: { text: string | null; decoded: { ok: boolean; encoding: string; view: { text: string } } } }>(await a.client.query("events.get", { id: eventId }));
    expect(event.body.text).toBeNull();
    expect(event.body.decoded).toMatchObject({ ok: true, encoding: "gzip", view: { text: json } });
  });
});

describe("bulk replays", () => {
  it("replays 40 events of 5 MiB with the heap bounded: bodies are read a few MiB at a time", async () => {
    // Stored directly (each body distinct, made inside PostgreSQL): 200 MiB need not cross the test's own heap.
    const count = 40;
    const repeat = (5 * MiB) / 32;
    const endpoint = data<{ id: string }>(await a.client.mutate("endpoints.create", { name: "bulk of large events" }));
    const ids = Array.from({ length: count }, () => uuidv7());
    await t.db.query(
      `insert into events (id, endpoint_id, received_at, method, path, query, headers, body, size_bytes, source, event_type, status)
       select t.id, $1, now(), 'POST', '', '', '[]', convert_to(repeat(md5(t.n::text), $2), 'UTF8'), $2 * 32, 'unknown', 'bulk.' || t.n, 'captured'
       from unnest($3::uuid[]) with ordinality as t(id, n)`,
      [endpoint.id, repeat, ids],
    );
    const expected = new Set(Array.from({ length: count }, (_, i) => sha256(Buffer.from(createHash("md5").update(String(i + 1)).digest("hex").repeat(repeat)))));

    const gc = runGc();
    gc();
    const baseline = liveBytes();
    let peak = baseline;
    const sampler = setInterval(() => {
      gc();
      peak = Math.max(peak, liveBytes());
    }, 250);
    try {
      const job = data<{ id: string }>(await a.client.mutate("replays.startBulk", { endpointId: endpoint.id, environment: "custom", customUrl: `${sink.url}/bulk`, status: "captured" }));
      await waitFor(async () => data<{ state: string }>(await a.client.query("replays.bulk", { id: job.id })).state === "finished", "the bulk replay to finish", 120_000);
      expect(data<{ done: number; delivered: number }>(await a.client.query("replays.bulk", { id: job.id }))).toMatchObject({ done: count, delivered: count });
    } finally {
      clearInterval(sampler);
    }
    const bulk = sink.received.filter((r) => r.path === "/bulk");
    expect(bulk).toHaveLength(count);
    expect(new Set(bulk.map((r) => r.sha256))).toEqual(expected);
    // Read 100 to a page, the 200 MiB would be in memory at once (twice, as hex text and bytes).
    expect(peak - baseline).toBeLessThan(120 * MiB);
  }, 180_000);

  it(`refuses a third concurrent bulk replay of one team with TOO_MANY_REQUESTS, and takes it once one finished`, async () => {
    const other = await account("bodies-bulk@example.com");
    await capture(other.endpoint.slug, Buffer.from("{}"), "application/json");
    const start = () => other.client.mutate("replays.startBulk", { endpointId: other.endpoint.id, environment: "custom", customUrl: `${sink.url}/held`, status: "captured" });
    sink.hold();
    try {
      const jobs = [];
      for (let i = 0; i < MAX_RUNNING_BULK_REPLAYS_PER_TEAM; i += 1) jobs.push(data<{ id: string }>(await start()));
      const refused = await start();
      expect(refused.status).toBe(429);
      expect(refused.body.error!.json.data.code).toBe("TOO_MANY_REQUESTS");
      expect(refused.body.error!.json.message).toMatch(/2 bulk replays are already running: wait for one to finish/);
      // Another user is not affected.
      expect((await b.client.mutate("replays.startBulk", { endpointId: b.endpoint.id, environment: "custom", customUrl: `${sink.url}/b`, status: "captured" })).status).toBe(200);
      sink.release();
      for (const job of jobs) {
        await waitFor(async () => data<{ state: string }>(await other.client.query("replays.bulk", { id: job.id })).state === "finished", "a held job to finish");
      }
      expect((await start()).status).toBe(200);
    } finally {
      sink.release();
    }
  });
});

/** Memory this process keeps alive: the JS heap and the buffers outside it. */
function liveBytes(): number {
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.arrayBuffers;
}

/** A full garbage collection on demand, so samples measure what is alive rather than what awaits collection. */
function runGc(): () => void {
  setFlagsFromString("--expose-gc");
  return runInNewContext("gc") as () => void;
}
