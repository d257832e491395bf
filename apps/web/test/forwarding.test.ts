import { createHash } from "node:crypto";
import { createServer } from "node:net";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { head, rawRequest } from "./raw-http.js";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { startTestServer, type TestServer } from "./test-server.js";
import { waitFor } from "@rehook/vitest-config/wait-for";

let t: TestServer;
const sinks: Sink[] = [];

beforeAll(async () => {
  t = await startTestServer({ ALLOW_PRIVATE_DESTINATIONS: "true", FORWARD_TIMEOUT_MS: "1000" });
});
afterAll(async () => {
  await t.close();
  await Promise.all(sinks.map((sink) => sink.close()));
});

async function sink(answer: Parameters<typeof startSink>[0]): Promise<Sink> {
  const started = await startSink(answer);
  sinks.push(started);
  return started;
}

interface EventRow {
  status: string;
  latency_ms: number | null;
  response_status: number | null;
  response_body: Buffer | null;
  error: string | null;
  destination_url: string | null;
  received_at: Date;
  forwarded_at: Date | null;
  completed_at: Date | null;
}

async function settled(eventId: string): Promise<EventRow> {
  let row: EventRow | undefined;
  await waitFor(async () => {
    [row] = await t.db.query<EventRow>("select * from events where id = $1", [eventId]);
    return row !== undefined && row.status !== "pending";
  }, `event ${eventId} to leave pending`);
  return row!;
}

async function capture(slug: string, body: Buffer, headers: Array<[string, string]> = [], target = ""): Promise<string> {
  const response = await rawRequest(t.rehook.url, [head("POST", `/api/webhook/${slug}${target}`, [...headers, ["Content-Length", String(body.length)]]), body]);
  expect(response.status).toBe(200);
  return JSON.parse(response.body).eventId as string;
}

const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");

function headerPairs(raw: string[]): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i < raw.length; i += 2) pairs.push([raw[i]!, raw[i + 1]!]);
  return pairs;
}

describe("forwarding", () => {
  it("delivers the same bytes and headers, in order, minus hop-by-hop, to destination + sub-path + query", async () => {
    const destination = await sink((_req, res) => res.end("received"));
    const endpoint = await t.createEndpoint("forward", `http://127.0.0.1:${destination.port}/in`);
    const body = Buffer.from([0x7b, 0x00, 0xff, 0xfe, 0x7d]);
    const sent: Array<[string, string]> = [
      ["Content-Type", "application/json"],
      ["X-Dup", "1"],
      ["Keep-Alive", "timeout=5"],
      ["Proxy-Authorization", "Basic eA=="],
      ["X-Dup", "2"],
      ["Stripe-Signature", "t=1,v1=abc"],
    ];
    const eventId = await capture(endpoint.slug, body, sent, "/github/push?a=1&a=2");
    const event = await settled(eventId);
    expect(event).toMatchObject({ status: "delivered", response_status: 200, error: null });
    expect(event.response_body!.toString()).toBe("received");
    expect(event.latency_ms).toBeGreaterThanOrEqual(0);
    // The attempt's start is stored: after the capture, no later than its result was stored.
    expect(event.forwarded_at!.getTime()).toBeGreaterThanOrEqual(event.received_at.getTime());
    expect(event.forwarded_at!.getTime()).toBeLessThanOrEqual(event.completed_at!.getTime() + 1);

    const [got] = destination.received;
    expect(got!.url).toBe("/in/github/push?a=1&a=2");
    expect(sha256(got!.body)).toBe(sha256(body));
    const forwarded = headerPairs(got!.rawHeaders).filter(([name]) => !["host", "content-length", "connection"].includes(name.toLowerCase()));
    expect(forwarded).toEqual([["Content-Type", "application/json"], ["X-Dup", "1"], ["X-Dup", "2"], ["Stripe-Signature", "t=1,v1=abc"]]);
  });

  it("marks a 5xx answer failed, keeping its status and body", async () => {
    const destination = await sink((_req, res) => {
      res.statusCode = 503;
      res.end("busy");
    });
    const endpoint = await t.createEndpoint("five-hundred", `http://127.0.0.1:${destination.port}/`);
    const event = await settled(await capture(endpoint.slug, Buffer.from("{}")));
    expect(event).toMatchObject({ status: "failed", response_status: 503, error: "destination answered 503" });
    expect(event.response_body!.toString()).toBe("busy");
  });

  it("marks a destination that never answers failed at FORWARD_TIMEOUT_MS", async () => {
    const destination = await sink(() => undefined);
    const endpoint = await t.createEndpoint("silent", `http://127.0.0.1:${destination.port}/`);
    const event = await settled(await capture(endpoint.slug, Buffer.from("{}")));
    expect(event).toMatchObject({ status: "failed", response_status: null, error: "no complete answer within 1000 ms" });
    expect(event.latency_ms).toBeGreaterThanOrEqual(990);
  });

  it("does not follow a 302: failed, and only one request reached the destination", async () => {
    const destination = await sink((_req, res) => {
      res.writeHead(302, { location: "/next" });
      res.end();
    });
    const endpoint = await t.createEndpoint("redirect", `http://127.0.0.1:${destination.port}/first`);
    const event = await settled(await capture(endpoint.slug, Buffer.from("{}")));
    expect(event).toMatchObject({ status: "failed", response_status: 302 });
    expect(destination.received.map((r) => r.url)).toEqual(["/first"]);
  });

  it("marks a refused connection failed", async () => {
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, "127.0.0.1", () => {
        const { port } = server.address() as { port: number };
        server.close(() => resolve(port));
      });
    });
    const endpoint = await t.createEndpoint("refused", `http://127.0.0.1:${port}/`);
    const event = await settled(await capture(endpoint.slug, Buffer.from("{}")));
    expect(event).toMatchObject({ status: "failed", error: "connection refused" });
  });

  it("signs with Standard Webhooks when the endpoint asks for it: webhook-id is the event id", async () => {
    const destination = await sink((_req, res) => res.end());
    const endpoint = await t.createEndpoint("signed", `http://127.0.0.1:${destination.port}/`);
    const [row] = await t.db.query<{ secret: string }>("update endpoints set sign_requests = true where id = $1 returning secret", [endpoint.id]);
    const body = Buffer.from(JSON.stringify({ type: "invoice.paid" }));
    const eventId = await capture(endpoint.slug, body, [["Content-Type", "application/json"], ["webhook-id", "sender-own-id"]]);
    expect((await settled(eventId)).status).toBe("delivered");
    const headers = Object.fromEntries(headerPairs(destination.received[0]!.rawHeaders).map(([n, v]) => [n.toLowerCase(), v]));
    expect(headers["webhook-id"]).toBe(eventId);
    expect(new Webhook(row!.secret).verify(destination.received[0]!.body.toString(), headers)).toEqual({ type: "invoice.paid" });
  });

  it("applies a changed destination to events captured afterwards only", async () => {
    const first = await sink((_req, res) => res.end());
    const second = await sink((_req, res) => res.end());
    const endpoint = await t.createEndpoint("moving", `http://127.0.0.1:${first.port}/`);
    const before = await capture(endpoint.slug, Buffer.from("{}"));
    await settled(before);
    await t.db.query("update destinations set url = $1 where endpoint_id = $2 and position = 0", [`http://127.0.0.1:${second.port}/`, endpoint.id]);
    const after = await capture(endpoint.slug, Buffer.from("{}"));
    await settled(after);
    expect(first.received).toHaveLength(1);
    expect(second.received).toHaveLength(1);
    const rows = await t.db.query<{ id: string; destination_url: string }>("select id, destination_url from events where id = any($1::uuid[])", [[before, after]]);
    expect(rows.find((r) => r.id === before)!.destination_url).toBe(`http://127.0.0.1:${first.port}/`);
  });

  it("keeps each endpoint's delivered and failed counters equal to its events' statuses", async () => {
    let calls = 0;
    const destination = await sink((_req, res) => {
      calls += 1;
      res.statusCode = calls % 3 === 0 ? 500 : 200;
      res.end();
    });
    const endpoint = await t.createEndpoint("mixed", `http://127.0.0.1:${destination.port}/`);
    const ids = await Promise.all(Array.from({ length: 60 }, (_, i) => capture(endpoint.slug, Buffer.from(JSON.stringify({ i })))));
    await Promise.all(ids.map(settled));
    const [counts] = await t.db.query<{ delivered: number; failed: number; delivered_count: number; failed_count: number }>(
      `select count(*) filter (where e.status = 'delivered')::int as delivered, count(*) filter (where e.status = 'failed')::int as failed,
              p.delivered_count::int, p.failed_count::int
       from endpoints p join events e on e.endpoint_id = p.id where p.id = $1 group by p.id`,
      [endpoint.id],
    );
    expect(counts!.delivered + counts!.failed).toBe(60);
    expect(counts!.failed).toBe(20);
    expect(counts!.delivered_count).toBe(counts!.delivered);
    expect(counts!.failed_count).toBe(counts!.failed);
    expect(destination.received).toHaveLength(60); // each event forwarded once
  });
});

describe("forwarding with private destinations closed (the default)", () => {
  it("refuses at connect time a destination that became internal, with the reason, and sends nothing", async () => {
    const closed = await startTestServer({ FORWARD_TIMEOUT_MS: "1000" });
    try {
      const destination = await sink((_req, res) => res.end());
      const endpoint = await closed.createEndpoint("was-public", "https://hooks.example.com/in");
      // As if its DNS now pointed inside: bypass the save-time check.
      await closed.db.query("update destinations set url = $1 where endpoint_id = $2 and position = 0", [`http://127.0.0.1:${destination.port}/`, endpoint.id]);
      const response = await fetch(endpoint.webhookUrl.replace(/^http:\/\/[^/]+/, closed.rehook.url), { method: "POST", body: "{}" });
      const { eventId } = (await response.json()) as { eventId: string };
      let row: EventRow | undefined;
      await waitFor(async () => {
        [row] = await closed.db.query<EventRow>("select * from events where id = $1", [eventId]);
        return row?.status === "failed";
      }, "the blocked event to fail");
      expect(row!.error).toBe("blocked: loopback address");
      expect(destination.received).toHaveLength(0);
    } finally {
      await closed.close();
    }
  });
});
