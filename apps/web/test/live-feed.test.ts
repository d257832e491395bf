import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { DashboardClient } from "./dashboard-client.js";
import { head, rawRequest } from "./raw-http.js";
import { startTestServer, type TestServer } from "./test-server.js";

let a: TestServer;
let b: TestServer;
let sink: Sink;

beforeAll(async () => {
  a = await startTestServer({ ALLOW_PRIVATE_DESTINATIONS: "true" });
  b = await startTestServer({ ALLOW_PRIVATE_DESTINATIONS: "true" }, a.db);
  sink = await startSink((_req, res) => res.end("ok"));
});
afterAll(async () => {
  await b.close();
  await a.close();
  await sink.close();
});

/** Reads a server-sent-event stream, collecting every `data:` payload as text. */
async function openStream(client: DashboardClient, path: string, signal: AbortSignal) {
  const response = await fetch(new URL(path, client.baseUrl), { headers: { accept: "text/event-stream", cookie: client.cookie! }, signal });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/text\/event-stream/);
  const received: string[] = [];
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  void (async () => {
    let buffer = "";
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }));
      if (done) return;
      buffer += value;
      let end: number;
      while ((end = buffer.indexOf("\n\n")) !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = block.split("\n").filter((line) => line.startsWith("data:")).map((line) => line.slice(5).trim()).join("\n");
        if (data) received.push(data);
      }
    }
  })();
  return received;
}

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("live activity feed (tRPC subscription over server-sent events)", () => {
  it("streams an event captured by another instance, then its status change, and nothing of other users", async () => {
    const owner = new DashboardClient(a.rehook.url);
    await owner.postForm("/signup", { email: "live@example.com", password: "a long enough password" });
    const created = await owner.mutate("endpoints.create", { name: "live", destinationUrl: `http://127.0.0.1:${sink.port}/in` });
    const endpoint = created.body.result!.data.json as { id: string; slug: string };
    const stranger = await b.createEndpoint("someone else's");

    const abort = new AbortController();
    const input = encodeURIComponent(JSON.stringify({ json: { endpointId: undefined } }));
    const received = await openStream(owner, `/trpc/events.live?input=${input}`, abort.signal);
    try {
      const body = Buffer.from('{"type":"invoice.paid"}');
      const capture = (slug: string) =>
        rawRequest(b.rehook.url, [head("POST", `/api/webhook/${slug}`, [["Content-Type", "application/json"], ["Content-Length", String(body.length)]]), body]);
      const foreignId = JSON.parse((await capture(stranger.slug)).body).eventId as string;
      const eventId = JSON.parse((await capture(endpoint.slug)).body).eventId as string;

      await until(() => received.some((data) => data.includes(eventId) && data.includes('"delivered"')), "the delivered status on the stream");
      const mine = received.filter((data) => data.includes(eventId));
      expect(mine[0]).toContain("invoice.paid");
      expect(received.join("\n")).not.toContain(foreignId);
    } finally {
      abort.abort();
    }
  });
});
