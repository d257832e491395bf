import { request, type IncomingMessage } from "node:http";
import { connect } from "node:net";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { loadConfig, silentLogger } from "@rehook/core";
import { actorFor, createApiKey, createEndpoint, createUser } from "@rehook/services";
import { startServer, type RehookServer } from "@rehook/server";
import { createTestDatabase, type TestDatabase } from "@rehook/vitest-config/postgres";

// Streams never end by themselves. Shutdown ends them when it begins and refuses new ones,
// so a client that reconnects at once (rehook listen) cannot hold the server open.

let db: TestDatabase;
let rehook: RehookServer;
let apiKey: string;
let endpointId: string;
let endpointSlug: string;
let cookie: string;
let errors: string[];

/** A stream request whose answer is read to its end: `ended` resolves with how it ended. */
interface OpenedStream {
  response: IncomingMessage;
  body: () => string;
  ended: Promise<"end" | "error">;
}

function openStream(path: string, headers: Record<string, string>): Promise<OpenedStream> {
  return new Promise((resolve, reject) => {
    const outgoing = request(`${rehook.url}${path}`, { headers: { accept: "text/event-stream", ...headers } }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      const ended = new Promise<"end" | "error">((settle) => {
        response.on("data", (chunk: string) => (body += chunk));
        response.once("end", () => settle("end"));
        response.once("error", () => settle("error"));
        response.once("aborted", () => settle("error"));
      });
      resolve({ response, body: () => body, ended });
    });
    outgoing.once("error", reject);
    outgoing.end();
  });
}

const apiStreamPath = () => `/api/v1/endpoints/${endpointId}/stream`;
const liveFeedPath = () => `/trpc/events.live?input=${encodeURIComponent(JSON.stringify({ json: {} }))}`;

beforeEach(async () => {
  db = await createTestDatabase();
  const config = loadConfig({ PORT: "0", HOST: "127.0.0.1", DATABASE_URL: db.url, LOG_LEVEL: "silent" }, "/unused");
  errors = [];
  rehook = await startServer(config, { ...silentLogger, error: (message, fields) => void errors.push(`${message} ${JSON.stringify(fields)}`) });
  const user = await createUser({ orm: rehook.database.orm }, { email: "stop@example.com", password: "correct horse battery" });
  const { actor } = await actorFor({ orm: rehook.database.orm }, { userId: user.id });
  apiKey = (await createApiKey({ orm: rehook.database.orm }, actor, {})).key;
  const ctx = { orm: rehook.database.orm, baseUrl: rehook.url, addressPolicy: { allowPrivate: true }, retentionDays: 7 };
  const endpoint = await createEndpoint(ctx, { teamId: actor.teamId, name: "stop", destinationUrl: null });
  endpointId = endpoint.id;
  endpointSlug = endpoint.slug;
  const logIn = await fetch(`${rehook.url}/trpc/auth.logIn`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: rehook.url },
    body: JSON.stringify({ json: { email: "stop@example.com", password: "correct horse battery" } }),
  });
  expect(logIn.status).toBe(200);
  cookie = logIn.headers.getSetCookie()[0]!.split(";")[0]!;
});
afterEach(async () => {
  await rehook.close();
  await db.drop();
});

describe("event streams at shutdown", () => {
  it("drain ends the open /api/v1 stream and live feed cleanly, answers new ones 503 unavailable, and still serves the rest", async () => {
    const api = await openStream(apiStreamPath(), { authorization: `Bearer ${apiKey}` });
    const feed = await openStream(liveFeedPath(), { cookie });
    expect([api.response.statusCode, feed.response.statusCode]).toEqual([200, 200]);

    rehook.drain();
    // The end of the response, not a reset: the client knows the server closed the stream.
    expect(await api.ended).toBe("end");
    expect(await feed.ended).toBe("end");

    for (const [path, headers] of [
      [apiStreamPath(), { authorization: `Bearer ${apiKey}` }],
      [liveFeedPath(), { cookie }],
    ] as const) {
      const refused = await openStream(path, headers);
      await refused.ended;
      expect(refused.response.statusCode, path).toBe(503);
      expect(refused.response.headers.connection).toBe("close");
      expect(JSON.parse(refused.body())).toEqual({ error: { code: "unavailable", message: expect.stringContaining("stopping") } });
    }
    // Everything else still serves while draining.
    expect((await fetch(`${rehook.url}/api/webhook/${endpointSlug}`, { method: "POST", body: "{}" })).status).toBe(200);
    expect((await fetch(`${rehook.url}/api/v1/endpoints/${endpointId}`, { headers: { authorization: `Bearer ${apiKey}` } })).status).toBe(200);
    // Ending the streams is no failure to report.
    await rehook.close();
    expect(errors).toEqual([]);
  });

  it("close() lets a request in flight finish, then closes its connection instead of serving more on it", async () => {
    const { hostname, port } = new URL(rehook.url);
    const socket = connect(Number(port), hostname);
    let received = "";
    socket.setEncoding("utf8").on("data", (chunk: string) => (received += chunk));
    const serverClosed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    await new Promise<void>((resolve) => socket.once("connect", resolve));
    // A capture whose body is still on its way when the stop begins.
    socket.write(`POST /api/webhook/${endpointSlug} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{`);
    await expect.poll(() => rehook.bodyBudget.used).toBeGreaterThan(0);

    const closing = rehook.close();
    socket.write("}");
    await expect.poll(() => received.endsWith("}")).toBe(true);
    // The connection's next request: node would serve it (and the next, for as long as the client asks).
    socket.on("error", () => undefined).write(`GET /healthz HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`);
    await serverClosed;
    await closing;
    // The request in flight was answered (its row committed); nothing after it was.
    expect(received).toMatch(/^HTTP\/1\.1 200 /);
    expect(received.match(/HTTP\/1\.1 /g)).toHaveLength(1);
    socket.destroy();
  });
});
