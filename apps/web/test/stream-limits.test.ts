import type { ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uuidv7 } from "@rehook/core";
import { createPool, EventBus, eventSummariesByIds, GroupCommitWriter, type EventSummary } from "@rehook/db";
import { limitStreams, MAX_STREAMS_PER_USER, openLiveEvents, streamSlotsOf, type LiveRowLoader } from "@rehook/services";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { DashboardClient } from "./dashboard-client.js";
import { openNonReadingClient, openSse, type SseStream } from "./sse-client.js";
import { startStreamInstance } from "./stream-instance.js";
import { startTestServer, type TestServer } from "./test-server.js";

let t: TestServer;
const sockets: Socket[] = [];
const streams: SseStream[] = [];
/** Responses of the test server that are event streams, as the server holds them. */
const serverStreams: ServerResponse[] = [];

interface Account {
  client: DashboardClient;
  key: string;
  userId: string;
  /** Their personal team, where the dashboard made their key and endpoint. */
  teamId: string;
  endpoint: { id: string; slug: string };
}

async function account(email: string): Promise<Account> {
  const client = new DashboardClient(t.rehook.url);
  await client.postForm("/signup", { email, password: "a long enough password" });
  const key = ((await client.mutate("apiKeys.create", { name: "streams" })).body.result!.data.json as { key: string }).key;
  const endpoint = (await client.mutate("endpoints.create", { name: `${email} stream` })).body.result!.data.json as { id: string; slug: string };
  const [user] = await t.db.query<{ id: string; team_id: string }>("select users.id, teams.id as team_id from users join teams on teams.personal_of_id = users.id where users.email = $1", [email]);
  return { client, key, userId: user!.id, teamId: user!.team_id, endpoint };
}

async function capture(slug: string, body: Buffer): Promise<string> {
  const response = await fetch(`${t.rehook.url}/api/webhook/${slug}`, { method: "POST", headers: { "content-type": "application/octet-stream" }, body });
  expect(response.status).toBe(200);
  return ((await response.json()) as { eventId: string }).eventId;
}

const apiStream = (base: string, who: Account, query = "") =>
  openSse(`${base}/api/v1/endpoints/${who.endpoint.id}/stream${query}`, { authorization: `Bearer ${who.key}` });

const liveStream = (base: string, who: Account) =>
  openSse(`${base}/trpc/events.live?input=${encodeURIComponent(JSON.stringify({ json: {} }))}`, { cookie: who.client.cookie! });

async function track<T extends SseStream>(opened: Promise<T>): Promise<T> {
  const stream = await opened;
  streams.push(stream);
  return stream;
}

/** The tRPC error a subscription stream sent instead of data, if any. */
function trpcError(stream: SseStream): { code: string; message: string } | undefined {
  const error = stream.messages.find((m) => m.event === "serialized-error");
  if (!error) return undefined;
  const shape = (JSON.parse(error.data) as { json: { message: string; data: { code: string } } }).json;
  return { code: shape.data.code, message: shape.message };
}

/** Samples a value every few milliseconds until stopped, keeping the largest. */
function sampleMax(read: () => number): { stop(): number } {
  let max = read();
  const timer = setInterval(() => (max = Math.max(max, read())), 5);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(max, read());
    },
  };
}

let a: Account;
let b: Account;

beforeAll(async () => {
  t = await startTestServer();
  t.rehook.server.on("request", (req, res: ServerResponse) => {
    if (String(req.headers.accept ?? "").includes("text/event-stream")) serverStreams.push(res);
  });
  a = await account("streams-a@example.com");
  b = await account("streams-b@example.com");
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  for (const stream of streams) stream.close();
  await t.close();
});

function closeAll(): void {
  for (const stream of streams.splice(0)) stream.close();
  for (const socket of sockets.splice(0)) socket.destroy();
}

describe("event streams respect backpressure", () => {
  it("a /api/v1 stream client that never reads holds the stream back: at most a piece waits in memory", async () => {
    const before = serverStreams.length;
    const socket = await openNonReadingClient(t.rehook.url, `/api/v1/endpoints/${a.endpoint.id}/stream`, { authorization: `Bearer ${a.key}` });
    sockets.push(socket);
    await waitFor(() => serverStreams.length > before && serverStreams[before]!.headersSent, "the stream to start");
    const res = serverStreams[before]!;
    const queued = sampleMax(() => res.writableLength);
    // 32 MiB of bodies, 43 MiB as server-sent events: far more than the sockets' buffers take.
    const body = Buffer.alloc(1024 * 1024, 7);
    for (let i = 0; i < 32; i += 1) await capture(a.endpoint.slug, body);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const most = queued.stop();
    // Written without waiting for 'drain', these events would all wait in memory (tens of MiB).
    expect(most).toBeLessThan(1024 * 1024);
    // Blocked, not yet dropped: the default bound is 30 s.
    expect(res.destroyed).toBe(false);
    closeAll();
  });

  it("drops a client that reads nothing past the bound, and gives its slot back", async () => {
    const instance = await startStreamInstance(t, { maxBlockedMs: 300 });
    try {
      const api = await openNonReadingClient(instance.url, `/api/v1/endpoints/${a.endpoint.id}/stream`, { authorization: `Bearer ${a.key}` });
      sockets.push(api);
      await waitFor(() => instance.responses[0]?.res.headersSent === true, "the stream to start");
      const res = instance.responses[0]!.res;
      expect(streamSlotsOf(instance.bus).open(a.userId)).toBe(1);
      const body = Buffer.alloc(1024 * 1024, 9);
      const started = Date.now();
      for (let i = 0; i < 40 && !res.destroyed; i += 1) await capture(a.endpoint.slug, body);
      await waitFor(() => res.destroyed, "the client to be dropped", 5_000);
      expect(Date.now() - started).toBeLessThan(15_000);
      await waitFor(() => streamSlotsOf(instance.bus).open(a.userId) === 0, "the slot to be given back");
    } finally {
      closeAll();
      await instance.close();
    }
  });

  it("drops a dashboard live-feed client that reads nothing past the bound", async () => {
    const instance = await startStreamInstance(t, { maxBlockedMs: 300 });
    try {
      const live = await openNonReadingClient(instance.url, `/trpc/events.live?input=${encodeURIComponent(JSON.stringify({ json: {} }))}`, { cookie: a.client.cookie! });
      sockets.push(live);
      await waitFor(() => instance.responses[0]?.res.headersSent === true && streamSlotsOf(instance.bus).open(a.userId) === 1, "the subscription to start");
      const res = instance.responses[0]!.res;
      // Feed rows are small: many events with long (stored as is) types fill the sockets' buffers.
      const type = "t".repeat(4_000);
      const pool = createPool({ databaseUrl: t.db.url, max: 1 });
      try {
        // Stored and announced by the capture statement (the feed reads the rows when their turn comes).
        const writer = new GroupCommitWriter(pool);
        const results = await Promise.all(
          Array.from({ length: 4000 }, (_, n) =>
            writer.write({ id: uuidv7(), slug: a.endpoint.slug, receivedAt: new Date(), method: "POST", path: "", query: "", headers: [], body: Buffer.alloc(0), contentType: null, clientIp: null, source: "unknown", eventType: `${type}${n + 1}` }),
          ),
        );
        expect(results.every((result) => result.kind === "stored")).toBe(true);
      } finally {
        await pool.end();
      }
      await waitFor(() => res.destroyed, "the live-feed client to be dropped", 10_000);
      await waitFor(() => streamSlotsOf(instance.bus).open(a.userId) === 0, "the slot to be given back");
    } finally {
      closeAll();
      await instance.close();
    }
  });
});

describe("open streams are capped per user and per instance", () => {
  it(`refuses the ${MAX_STREAMS_PER_USER + 1}th stream of one user with 429, counting both kinds, and frees a place when one closes`, async () => {
    const open: SseStream[] = [];
    for (let i = 0; i < MAX_STREAMS_PER_USER - 2; i += 1) open.push(await track(apiStream(t.rehook.url, a)));
    for (let i = 0; i < 2; i += 1) open.push(await track(liveStream(t.rehook.url, a)));
    // Each answered 200 only once its slot was taken.
    expect(open.every((stream) => stream.status === 200)).toBe(true);

    const refused = await track(apiStream(t.rehook.url, a));
    expect(refused.status).toBe(429);
    expect(refused.error).toEqual({ error: { code: "rate_limited", message: expect.stringMatching(/at most 10 per user/) } });
    const refusedLive = await track(liveStream(t.rehook.url, a));
    await refusedLive.ended;
    expect(trpcError(refusedLive)).toEqual({ code: "TOO_MANY_REQUESTS", message: expect.stringMatching(/at most 10 per user/) });

    // Another user is not affected.
    expect((await track(apiStream(t.rehook.url, b))).status).toBe(200);

    // Closing a stream (here a live feed tab) gives its place back.
    open[MAX_STREAMS_PER_USER - 1]!.close();
    await waitFor(async () => {
      const again = await track(apiStream(t.rehook.url, a));
      return again.status === 200;
    }, "a place for a new stream once one closed");
    closeAll();
  });

  it("refuses streams past the instance's limit, whoever asks", async () => {
    const instance = await startStreamInstance(t, {});
    limitStreams(instance.bus, { perUser: 10, perInstance: 2 });
    try {
      expect((await track(apiStream(instance.url, a))).status).toBe(200);
      expect((await track(liveStream(instance.url, b))).status).toBe(200);
      const refused = await track(apiStream(instance.url, b));
      expect(refused.status).toBe(429);
      expect(refused.error).toMatchObject({ error: { code: "rate_limited", message: expect.stringMatching(/^This server has 2 open event streams/) } });
    } finally {
      closeAll();
      await instance.close();
    }
  });
});

describe("the live feed and other users' events", () => {
  it("a subscriber costs no query for another user's events: messages are filtered by owner in memory", async () => {
    const bus = await EventBus.connect(t.db.url);
    const stop = new AbortController();
    const loads: string[][] = [];
    const countingLoader: LiveRowLoader = (em, teamId, ids) => {
      loads.push(ids);
      return eventSummariesByIds(em, teamId, ids);
    };
    try {
      const rows = await openLiveEvents({ orm: t.rehook.database.orm, bus }, { teamId: a.teamId, userId: a.userId, filter: {}, signal: stop.signal }, countingLoader);
      const received: EventSummary[] = [];
      const reading = (async () => {
        for await (const batch of rows) received.push(...batch);
      })();
      // Subscribed once the generator runs: the first read starts it.
      await new Promise((resolve) => setTimeout(resolve, 100));
      for (let i = 0; i < 20; i += 1) await capture(b.endpoint.slug, Buffer.from(`{"type":"b.${i}"}`));
      const mine = await capture(a.endpoint.slug, Buffer.from('{"type":"a.0"}'));
      await waitFor(() => received.some((row) => row.id === mine), "A's own event on A's feed");
      expect(loads).toEqual([[mine]]);
      expect(received.map((row) => row.id)).toEqual([mine]);
      stop.abort();
      await reading;
    } finally {
      stop.abort();
      await bus.close();
    }
  });
});

describe("large events on the stream", () => {
  it("a resumed stream catches up on large events byte for byte, a bounded page at a time", async () => {
    const first = await capture(a.endpoint.slug, Buffer.from("before"));
    const bodies = Array.from({ length: 12 }, (_, i) => Buffer.alloc(1024 * 1024 + i, i + 1));
    const ids: string[] = [];
    for (const body of bodies) ids.push(await capture(a.endpoint.slug, body));
    const stream = await track(apiStream(t.rehook.url, a, `?after=${first}`));
    await waitFor(() => ids.every((id) => stream.messages.some((m) => m.id === id)), "the backlog", 20_000);
    for (const [index, id] of ids.entries()) {
      const message = stream.messages.find((m) => m.id === id)!;
      const data = JSON.parse(message.data) as { id: string; body_base64: string };
      expect(data.id).toBe(id);
      expect(Buffer.from(data.body_base64, "base64").equals(bodies[index]!)).toBe(true);
    }
    closeAll();
  });
});
