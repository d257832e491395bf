import { createHash } from "node:crypto";
import { createServer } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createSafeAgent, sendRequest, type DeliveryTask } from "../src/index.js";
import { startSink, type Sink } from "@rehook/vitest-config/sink";

const open = createSafeAgent({ policy: { allowPrivate: true }, connectTimeoutMs: 2_000 });
const closed = createSafeAgent({ policy: { allowPrivate: false }, connectTimeoutMs: 2_000 });
let sinks: Sink[] = [];

afterEach(async () => {
  await Promise.all(sinks.map((sink) => sink.close()));
  sinks = [];
});
afterAll(async () => {
  await open.close();
  await closed.close();
});

async function sink(answer: Parameters<typeof startSink>[0]): Promise<Sink> {
  const started = await startSink(answer);
  sinks.push(started);
  return started;
}

function task(url: string, overrides: Partial<DeliveryTask> = {}): DeliveryTask {
  return {
    url,
    method: "POST",
    headers: [["Content-Type", "application/json"]],
    body: Buffer.from("{}"),
    timeoutMs: 5_000,
    maxResponseBytes: 256 * 1024,
    allowPrivate: true,
    ...overrides,
  };
}

const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

describe("sendRequest", () => {
  it("sends the method, the exact body bytes and the headers in order with duplicates", async () => {
    const target = await sink((_req, res) => res.end("thanks"));
    const body = Buffer.from([0, 1, 2, 0xff, 0xfe, 0xc3, 0x28, 0x7b]);
    const headers: Array<[string, string]> = [["X-First", "1"], ["Content-Type", "application/octet-stream"], ["X-Dup", "a"], ["X-Dup", "b"], ["Stripe-Signature", "t=1,v1=x"]];
    const result = await sendRequest(open, task(`http://127.0.0.1:${target.port}/in?x=1`, { method: "PUT", headers, body }));
    expect(result).toMatchObject({ ok: true, status: 200, error: null, truncated: false });
    expect(Buffer.from(result.body!).toString()).toBe("thanks");
    const [got] = target.received;
    expect(got!.method).toBe("PUT");
    expect(got!.url).toBe("/in?x=1");
    expect(sha256(got!.body)).toBe(sha256(body));
    const sent = [];
    for (let i = 0; i < got!.rawHeaders.length; i += 2) sent.push([got!.rawHeaders[i], got!.rawHeaders[i + 1]]);
    expect(sent.filter(([name]) => name!.toLowerCase() !== "host" && name!.toLowerCase() !== "content-length" && name!.toLowerCase() !== "connection")).toEqual(headers);
  });

  it("treats a 5xx answer as a failure and keeps its status and body", async () => {
    const target = await sink((_req, res) => {
      res.statusCode = 503;
      res.end("down for maintenance");
    });
    const result = await sendRequest(open, task(`http://127.0.0.1:${target.port}/`));
    expect(result).toMatchObject({ ok: false, status: 503, error: "destination answered 503" });
    expect(Buffer.from(result.body!).toString()).toBe("down for maintenance");
  });

  it("never follows a redirect: a 302 is a failure and no second request is made", async () => {
    const target = await sink((_req, res) => {
      res.writeHead(302, { location: "/elsewhere" });
      res.end();
    });
    const result = await sendRequest(open, task(`http://127.0.0.1:${target.port}/start`));
    expect(result).toMatchObject({ ok: false, status: 302 });
    expect(result.error).toMatch(/redirects are not followed/);
    expect(target.received.map((r) => r.url)).toEqual(["/start"]);
  });

  it("gives up at the deadline when the destination never answers", async () => {
    const target = await sink(() => undefined); // reads the request, never answers
    const result = await sendRequest(open, task(`http://127.0.0.1:${target.port}/`, { timeoutMs: 300 }));
    expect(result).toMatchObject({ ok: false, status: null, timedOut: true, error: "no complete answer within 300 ms" });
    expect(result.latencyMs).toBeGreaterThanOrEqual(290);
    expect(result.latencyMs).toBeLessThan(3_000);
  });

  it("reports a refused connection", async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer();
      server.listen(0, "127.0.0.1", () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const result = await sendRequest(open, task(`http://127.0.0.1:${port}/`));
    expect(result).toMatchObject({ ok: false, status: null, error: "connection refused" });
  });

  it("keeps at most maxResponseBytes of the answer and says it truncated", async () => {
    const target = await sink((_req, res) => res.end(Buffer.alloc(10_000, 0x61)));
    const result = await sendRequest(open, task(`http://127.0.0.1:${target.port}/`, { maxResponseBytes: 100 }));
    expect(result.ok).toBe(true);
    expect(result.body!.byteLength).toBe(100);
    expect(result.truncated).toBe(true);
  });
});

describe("address policy at connect time", () => {
  it("refuses an IP-literal loopback destination before connecting, with the reason", async () => {
    const target = await sink((_req, res) => res.end());
    const result = await sendRequest(closed, task(`http://127.0.0.1:${target.port}/`, { allowPrivate: false }));
    expect(result).toMatchObject({ ok: false, status: null, error: "blocked: loopback address" });
    expect(target.received).toHaveLength(0);
  });

  it("refuses a name that resolves to loopback (checked on the resolved address)", async () => {
    const target = await sink((_req, res) => res.end());
    const result = await sendRequest(closed, task(`http://localhost:${target.port}/`, { allowPrivate: false }));
    // The kind of address, never the address the name resolved to.
    expect(result).toMatchObject({ ok: false, error: "blocked: loopback address" });
    expect(target.received).toHaveLength(0);
  });

  it("connects to a resolved loopback name when private destinations are allowed", async () => {
    const target = await sink((_req, res) => res.end("ok"));
    const result = await sendRequest(open, task(`http://localhost:${target.port}/`));
    expect(result).toMatchObject({ ok: true, status: 200 });
  });

  it.each(["http://169.254.169.254/latest/meta-data/", "http://[::ffff:127.0.0.1]:9/", "http://0.0.0.0:9/"])("refuses %s even before any lookup", async (url) => {
    const result = await sendRequest(closed, task(url, { allowPrivate: false, timeoutMs: 1_000 }));
    expect(result.ok).toBe(false);
    expect(result.error).toMatch(/^blocked: /);
  });

  it("keeps cloud metadata closed when private destinations are allowed", async () => {
    const result = await sendRequest(open, task("http://169.254.169.254/latest/meta-data/", { timeoutMs: 1_000 }));
    expect(result.error).toBe("blocked: cloud metadata address");
  });

  it("refuses schemes other than http(s)", async () => {
    const result = await sendRequest(open, task("file:///etc/passwd"));
    expect(result.error).toMatch(/scheme file/);
  });
});
