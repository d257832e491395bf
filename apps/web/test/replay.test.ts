import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Webhook } from "standardwebhooks";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { eventCountMismatches } from "@rehook/vitest-config/event-counts";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { DashboardClient } from "./dashboard-client.js";
import { head, rawRequest } from "./raw-http.js";
import { startTestServer, type TestServer } from "./test-server.js";

let t: TestServer;
let owner: DashboardClient;
let stranger: DashboardClient;
const sinks: Record<"original" | "staging" | "custom", Sink> = {} as never;

const sha256 = (data: Buffer) => createHash("sha256").update(data).digest("hex");
const body = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x31, 0x7d, 0x00, 0xff]); // JSON-ish, then NUL and invalid UTF-8
const sentHeaders: Array<[string, string]> = [
  ["Content-Type", "application/json"],
  ["X-Dup", "1"],
  ["Stripe-Signature", "t=1,v1=abc"],
  ["X-Dup", "2"],
];

function pairs(raw: string[]): Array<[string, string]> {
  const list: Array<[string, string]> = [];
  for (let i = 0; i < raw.length; i += 2) list.push([raw[i]!, raw[i + 1]!]);
  return list.filter(([name]) => !["host", "content-length", "connection"].includes(name.toLowerCase()));
}

async function signedUp(server: TestServer, email: string): Promise<DashboardClient> {
  const client = new DashboardClient(server.rehook.url);
  expect((await client.postForm("/signup", { email, password: "a long enough password" })).status).toBe(303);
  return client;
}

async function capture(slug: string, target = "/orders?x=1"): Promise<string> {
  const response = await rawRequest(t.rehook.url, [head("POST", `/api/webhook/${slug}${target}`, [...sentHeaders, ["Content-Length", String(body.length)]]), body]);
  expect(response.status).toBe(200);
  return JSON.parse(response.body).eventId as string;
}

function replay(client: DashboardClient, eventId: string, payload: unknown, headers: Record<string, string> = {}) {
  return fetch(new URL(`/api/events/${eventId}/replay`, client.baseUrl), {
    method: "POST",
    headers: { "content-type": "application/json", origin: client.baseUrl, ...(client.cookie ? { cookie: client.cookie } : {}), ...headers },
    body: typeof payload === "string" ? payload : JSON.stringify(payload),
  });
}

async function createEndpoint(client: DashboardClient, input: Record<string, unknown>): Promise<{ id: string; slug: string }> {
  const created = await client.mutate("endpoints.create", input);
  expect(created.status).toBe(200);
  return created.body.result!.data.json as { id: string; slug: string };
}

async function settled(eventId: string): Promise<{ status: string }> {
  let row: { status: string } | undefined;
  await waitFor(async () => {
    [row] = await t.db.query<{ status: string }>("select status from events where id = $1", [eventId]);
    return row !== undefined && row.status !== "pending";
  }, `event ${eventId} to settle`);
  return row!;
}

beforeAll(async () => {
  t = await startTestServer({ ALLOW_PRIVATE_DESTINATIONS: "true" });
  for (const name of ["original", "staging", "custom"] as const) sinks[name] = await startSink((_req, res) => res.end(`${name} ok`));
  owner = await signedUp(t, "replayer@example.com");
  stranger = await signedUp(t, "stranger@example.com");
});
afterAll(async () => {
  await t.close();
  await Promise.all(Object.values(sinks).map((sink) => sink.close()));
});

describe("POST /api/events/{id}/replay", () => {
  let endpoint: { id: string; slug: string };
  let eventId: string;

  beforeAll(async () => {
    endpoint = await createEndpoint(owner, { name: "replays", destinationUrl: `http://127.0.0.1:${sinks.original.port}/in` });
    await owner.mutate("endpoints.update", { id: endpoint.id, stagingHost: `localhost:${sinks.staging.port}` });
    eventId = await capture(endpoint.slug);
    expect((await settled(eventId)).status).toBe("delivered");
  });

  it("replays to the original, staging and custom targets with the same bytes and headers, leaving status and health alone", async () => {
    const health = async () => (await t.db.query<{ delivered_count: string; failed_count: string }>("select delivered_count, failed_count from endpoints where id = $1", [endpoint.id]))[0];
    const before = await health();
    const cases = [
      { environment: "original", sink: sinks.original, url: `http://127.0.0.1:${sinks.original.port}/in/orders?x=1` },
      { environment: "staging", sink: sinks.staging, url: `http://localhost:${sinks.staging.port}/in/orders?x=1` },
      { environment: "custom", customUrl: `http://127.0.0.1:${sinks.custom.port}/elsewhere?k=v`, sink: sinks.custom, url: `http://127.0.0.1:${sinks.custom.port}/elsewhere?k=v` },
    ];
    for (const { sink, url, ...request } of cases) {
      const response = await replay(owner, eventId, request);
      expect(response.status, request.environment).toBe(200);
      const attempt = (await response.json()) as Record<string, unknown>;
      expect(Object.keys(attempt).sort()).toEqual(["destination_url", "id", "latency_ms", "modified", "replayed_at", "response_body", "response_status", "status"]);
      expect(attempt.modified).toBe(false);
      expect(attempt).toMatchObject({ status: "delivered", response_status: 200, response_body: `${request.environment} ok`, destination_url: url });
      const got = sink.received.at(-1)!;
      expect(sha256(got.body)).toBe(sha256(body));
      expect(pairs(got.rawHeaders)).toEqual(sentHeaders);
      expect(got.method).toBe("POST");
    }
    expect((await settled(eventId)).status).toBe("delivered");
    expect(await health()).toEqual(before);
    const rows = await t.db.query<{ environment: string; status: string; user_id: string }>("select environment, status, user_id from replay_attempts where event_id = $1 order by id", [eventId]);
    expect(rows.map((r) => r.environment)).toEqual(["original", "staging", "custom"]);
    expect(new Set(rows.map((r) => r.user_id)).size).toBe(1);
  });

  it("replays a failed event to its current destination once it is fixed: the event stays failed", async () => {
    const broken = await createEndpoint(owner, { name: "broken", destinationUrl: "http://127.0.0.1:1/nowhere" });
    const failedId = await capture(broken.slug, "");
    expect((await settled(failedId)).status).toBe("failed");
    await owner.mutate("endpoints.update", { id: broken.id, destinationUrl: `http://127.0.0.1:${sinks.original.port}/fixed` });
    const response = await replay(owner, failedId, { environment: "original" });
    expect(await response.json()).toMatchObject({ status: "delivered", destination_url: `http://127.0.0.1:${sinks.original.port}/fixed` });
    expect((await settled(failedId)).status).toBe("failed");
  });

  it("signs a replay afresh for a signing endpoint: same webhook-id, a signature that verifies", async () => {
    const signing = await createEndpoint(owner, { name: "signing", destinationUrl: `http://127.0.0.1:${sinks.custom.port}/signed` });
    await owner.mutate("endpoints.update", { id: signing.id, signRequests: true });
    const secret = ((await owner.query("endpoints.secret", { id: signing.id })).body.result!.data.json as { secret: string }).secret;
    const json = Buffer.from('{"type":"signed.event"}');
    const response = await rawRequest(t.rehook.url, [head("POST", `/api/webhook/${signing.slug}`, [["Content-Type", "application/json"], ["Content-Length", String(json.length)]]), json]);
    const signedId = JSON.parse(response.body).eventId as string;
    await settled(signedId);
    const forwarded = sinks.custom.received.at(-1)!;
    expect((await replay(owner, signedId, { environment: "original" })).status).toBe(200);
    const replayed = sinks.custom.received.at(-1)!;
    const header = (raw: string[], name: string) => {
      for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === name) return raw[i + 1];
      return undefined;
    };
    expect(header(replayed.rawHeaders, "webhook-id")).toBe(signedId);
    expect(header(forwarded.rawHeaders, "webhook-id")).toBe(signedId);
    const headersOf = (raw: string[]) => Object.fromEntries(["webhook-id", "webhook-timestamp", "webhook-signature"].map((name) => [name, header(raw, name)!]));
    expect(() => new Webhook(secret).verify(replayed.body.toString(), headersOf(replayed.rawHeaders))).not.toThrow();
  });

  it("answers every error with the JSON error shape and the right status", async () => {
    const anonymous = new DashboardClient(t.rehook.url);
    const cases: Array<[string, Response, number, RegExp]> = [
      ["no session", await replay(anonymous, eventId, { environment: "original" }), 401, /^Sign in to the dashboard first/i],
      ["foreign Origin", await replay(owner, eventId, { environment: "original" }, { origin: "https://evil.example" }), 403, /cross-site/i],
      ["text/plain", await replay(owner, eventId, { environment: "original" }, { "content-type": "text/plain" }), 415, /application\/json/],
      ["unknown event", await replay(owner, "0192f0e0-0000-7000-8000-000000000000", { environment: "original" }), 404, /no event/i],
      ["another user's event", await replay(stranger, eventId, { environment: "original" }), 404, /no event/i],
      ["not JSON", await replay(owner, eventId, "{oops"), 400, /JSON object/i],
      ["unknown environment", await replay(owner, eventId, { environment: "production" }), 400, /environment must be one of/i],
      ["custom without customUrl", await replay(owner, eventId, { environment: "custom" }), 400, /customUrl is required/i],
      ["malformed customUrl", await replay(owner, eventId, { environment: "custom", customUrl: "not a url" }), 400, /customUrl/i],
      ["custom to metadata", await replay(owner, eventId, { environment: "custom", customUrl: "http://169.254.169.254/latest" }), 422, /refused: blocked/i],
    ];
    const captureOnly = await createEndpoint(owner, { name: "capture only" });
    const capturedId = await capture(captureOnly.slug);
    cases.push(["original without destination", await replay(owner, capturedId, { environment: "original" }), 422, /no destination URL/i]);
    cases.push(["staging without destination", await replay(owner, capturedId, { environment: "staging" }), 422, /destination URL/i]);
    const noStaging = await createEndpoint(owner, { name: "no staging", destinationUrl: `http://127.0.0.1:${sinks.original.port}/x` });
    const noStagingEvent = await capture(noStaging.slug);
    cases.push(["staging without hostname", await replay(owner, noStagingEvent, { environment: "staging" }), 422, /staging hostname/i]);
    for (const [name, response, status, message] of cases) {
      expect(response.status, name).toBe(status);
      const payload = (await response.json()) as { error: { code: string; message: string } };
      expect(Object.keys(payload), name).toEqual(["error"]);
      expect(payload.error.message, name).toMatch(message);
    }
    expect(await t.db.query("select 1 from replay_attempts where event_id = $1 and user_id <> (select id from users where email = 'replayer@example.com')", [eventId])).toHaveLength(0);
  });
});

describe("replay targets the server may not reach", () => {
  it("refuses local and loopback replays with private destinations closed (422 with the reason)", async () => {
    const closed = await startTestServer({}, t.db);
    try {
      const client = new DashboardClient(closed.rehook.url);
      await client.postForm("/login", { email: "replayer@example.com", password: "a long enough password" });
      const [row] = await t.db.query<{ id: string }>("select e.id from events e join endpoints p on p.id = e.endpoint_id join users u on u.id = p.user_id where u.email = 'replayer@example.com' limit 1");
      const local = await replay(client, row!.id, { environment: "local" });
      expect(local.status).toBe(422);
      expect(((await local.json()) as { error: { message: string } }).error.message).toMatch(/refused: blocked: loopback/);
      const loopback = await replay(client, row!.id, { environment: "custom", customUrl: `http://127.0.0.1:${sinks.custom.port}/` });
      expect(loopback.status).toBe(422);
    } finally {
      await closed.close();
    }
  });
});

describe("bulk replay", () => {
  it("replays 500 failed events of an endpoint to its fixed destination and reports a correct summary", async () => {
    const failing = await startSink((_req, res) => {
      res.statusCode = 500;
      res.end("down");
    });
    try {
      const endpoint = await createEndpoint(owner, { name: "bulk", destinationUrl: `http://127.0.0.1:${failing.port}/in` });
      const ids: string[] = [];
      for (let batch = 0; batch < 10; batch += 1) ids.push(...(await Promise.all(Array.from({ length: 50 }, () => capture(endpoint.slug, "")))));
      await waitFor(async () => (await t.db.query("select 1 from events where endpoint_id = $1 and status = 'failed'", [endpoint.id])).length === 500, "500 failed events", 60_000);

      const fixed = await startSink((_req, res) => res.end("ok"));
      try {
        await owner.mutate("endpoints.update", { id: endpoint.id, destinationUrl: `http://127.0.0.1:${fixed.port}/in` });
        const started = await owner.mutate("replays.startBulk", { endpointId: endpoint.id, environment: "original" });
        expect(started.status).toBe(200);
        const job = started.body.result!.data.json as { id: string; total: number; state: string };
        expect(job).toMatchObject({ total: 500, state: "running" });
        let summary: { state: string; done: number; delivered: number; failed: number } | undefined;
        await waitFor(async () => {
          summary = (await owner.query("replays.bulk", { id: job.id })).body.result!.data.json as typeof summary;
          return summary!.state !== "running";
        }, "the bulk replay to finish", 120_000);
        expect(summary).toMatchObject({ state: "finished", done: 500, delivered: 500, failed: 0 });
        expect(fixed.received).toHaveLength(500);
        expect(new Set(fixed.received.map((r) => sha256(r.body)))).toEqual(new Set([sha256(body)]));
        const statuses = await t.db.query<{ status: string; n: string }>("select status, count(*) as n from events where endpoint_id = $1 group by status", [endpoint.id]);
        expect(statuses).toEqual([{ status: "failed", n: "500" }]);
        // Replays leave the events' statuses alone, and so their counts.
        expect(await eventCountMismatches(t.db)).toEqual([]);
        expect((await stranger.query("replays.bulk", { id: job.id })).status).toBe(404);
      } finally {
        await fixed.close();
      }
    } finally {
      await failing.close();
    }
  });

  it("survives a stopping instance: another resumes after the last event it finished, and each event is replayed once", async () => {
    const a = await startTestServer({ ALLOW_PRIVATE_DESTINATIONS: "true" });
    const b = await startTestServer({ ALLOW_PRIVATE_DESTINATIONS: "true" }, a.db);
    // Answers the first 8 replays at once and holds the others until released.
    let answered = 0;
    const held: Array<() => void> = [];
    const target = await startSink((_req, res) => {
      if (answered < 8) {
        answered += 1;
        res.end("ok");
      } else held.push(() => res.end("ok"));
    });
    try {
      const client = await signedUp(a, "resume@example.com");
      const endpoint = await createEndpoint(client, { name: "resume", destinationUrl: null });
      for (let i = 0; i < 30; i += 1) {
        const response = await fetch(`${a.rehook.url}/api/webhook/${endpoint.slug}`, { method: "POST", body: `event-${i}` });
        expect(response.status).toBe(200);
      }
      const started = await client.mutate("replays.startBulk", { endpointId: endpoint.id, environment: "custom", customUrl: `http://127.0.0.1:${target.port}/in`, status: null });
      expect(started.status).toBe(200);
      const job = started.body.result!.data.json as { id: string; total: number };
      expect(job.total).toBe(30);
      await waitFor(() => held.length > 0, "the replay to reach the held requests");
      const holder = [a, b].find((server) => server.rehook.jobs.runningCount("bulk_replay") === 1)!;
      const other = holder === a ? b : a;
      // The holder stops: it finishes the sends under way, stores where it got to, and hands the job back.
      const closing = holder.rehook.close();
      await waitFor(() => holder.rehook.jobs.stopping, "the job to be told to stop");
      held.splice(0).forEach((answer) => answer());
      await closing;
      const stored = (await a.db.query<{ state: string; done: number; after_id: string | null }>("select state, done, after_id from replay_jobs where id = $1", [job.id]))[0]!;
      expect(stored.state).toBe("running");
      expect(stored.done).toBeGreaterThan(8);
      expect(stored.done).toBeLessThan(30);
      expect(stored.after_id).not.toBeNull();

      // Whatever arrives now is answered at once; the other instance finishes the job.
      answered = -1_000;
      await waitFor(
        async () => (await a.db.query<{ state: string }>("select state from replay_jobs where id = $1", [job.id]))[0]!.state === "finished",
        "the other instance to finish the replay",
      );
      await waitFor(() => other.rehook.jobs.runningCount() === 0, "the job to end on the other instance");
      const bodies = target.received.map((request) => request.body.toString());
      expect(bodies).toHaveLength(30);
      expect(new Set(bodies)).toEqual(new Set(Array.from({ length: 30 }, (_, i) => `event-${i}`)));
      const summary = (await a.db.query("select done, delivered, failed from replay_jobs where id = $1", [job.id]))[0];
      expect(summary).toEqual({ done: 30, delivered: 30, failed: 0 });
    } finally {
      await target.close();
      await b.close();
      await a.close();
    }
  });
});
