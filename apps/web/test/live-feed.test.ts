import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { DashboardClient } from "./dashboard-client.js";
import { head, rawRequest } from "./raw-http.js";
import { openSse } from "./sse-client.js";
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

describe("live activity feed (tRPC subscription over server-sent events)", () => {
  it("streams an event captured by another instance, then its status change, and nothing of other users", async () => {
    const owner = new DashboardClient(a.rehook.url);
    await owner.postForm("/signup", { email: "live@example.com", password: "a long enough password" });
    const created = await owner.mutate("endpoints.create", { name: "live", destinationUrl: `http://127.0.0.1:${sink.port}/in` });
    const endpoint = created.body.result!.data.json as { id: string; slug: string };
    const stranger = await b.createEndpoint("someone else's");

    const input = encodeURIComponent(JSON.stringify({ json: { endpointId: undefined } }));
    const stream = await openSse(`${a.rehook.url}/trpc/events.live?input=${input}`, { cookie: owner.cookie! });
    expect(stream.status).toBe(200);
    const received = stream.messages;
    try {
      const body = Buffer.from('{"type":"invoice.paid"}');
      const capture = (slug: string) =>
        rawRequest(b.rehook.url, [head("POST", `/api/webhook/${slug}`, [["Content-Type", "application/json"], ["Content-Length", String(body.length)]]), body]);
      const foreignId = JSON.parse((await capture(stranger.slug)).body).eventId as string;
      const eventId = JSON.parse((await capture(endpoint.slug)).body).eventId as string;

      await waitFor(() => received.some(({ data }) => data.includes(eventId) && data.includes('"delivered"')), "the delivered status on the stream");
      const mine = received.filter(({ data }) => data.includes(eventId)).map(({ data }) => data);
      expect(mine[0]).toContain("invoice.paid");
      expect(received.map(({ data }) => data).join("\n")).not.toContain(foreignId);
    } finally {
      stream.close();
    }
  });
});
