import { createHash, createHmac, randomBytes } from "node:crypto";
import { describe, expect } from "vitest";
import { silentLogger } from "@rehook/core";
import { actorFor, createDestination, createEndpoint, createUser, endpointSecret, logIn, updateEndpoint, type Services } from "@rehook/services";
import type { TestDatabase } from "@rehook/vitest-config/postgres";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { createOriginPolicy } from "../src/origins.js";
import { createReplayRoute, matchReplayRoute } from "../src/replay-route.js";
import { BASE_URL, capture, listen, MISSING_ID, PASSWORD, test as base } from "./api-server.js";
import { defaultBodies } from "./default-bodies.js";

// POST /api/events/{id}/replay, the dashboard's replay: session cookie, same-origin check,
// JSON body, the replay use case, the attempt as the answer.

interface Dashboard {
  url: string;
  /** Sends a replay as a signed-in user's browser on the dashboard would. */
  replay(cookie: string | null, eventId: string, payload: unknown, headers?: Record<string, string>): Promise<Response>;
}

/** A signed-in user: their id, their personal team and the Cookie header their browser sends. */
interface SignedIn {
  id: string;
  teamId: string;
  cookie: string;
}

async function signedIn(services: Services): Promise<SignedIn> {
  const email = `replayer-${randomBytes(6).toString("hex")}@example.com`;
  const user = await createUser(services, { email, password: PASSWORD });
  const { cookie } = await logIn(services, { email, password: PASSWORD, clientAddress: null });
  const { actor } = await actorFor(services, { userId: user.id });
  return { id: user.id, teamId: actor.teamId, cookie: cookie.serialized.split(";")[0]! };
}

async function mountReplayRoute(services: Services) {
  const route = createReplayRoute({ services, origins: createOriginPolicy({ origins: [BASE_URL] }), logger: silentLogger, bodies: defaultBodies() });
  return listen(async (req, res) => {
    const eventId = matchReplayRoute(new URL(req.url ?? "/", "http://localhost").pathname);
    if (eventId === undefined) res.writeHead(404).end();
    else await route(req, res, eventId);
  });
}

function dashboardAt(url: string): Dashboard {
  return {
    url,
    replay: (cookie, eventId, payload, headers = {}) =>
      fetch(`${url}/api/events/${eventId}/replay`, {
        method: "POST",
        headers: { "content-type": "application/json", origin: BASE_URL, ...(cookie ? { cookie } : {}), ...headers },
        body: typeof payload === "string" ? payload : JSON.stringify(payload),
      }),
  };
}

const test = base.extend<{ dashboard: Dashboard; sinks: Record<"original" | "staging" | "custom", Sink>; owner: SignedIn; intruder: SignedIn }>({
  dashboard: [
    async ({ services }, use) => {
      const server = await mountReplayRoute(services);
      try {
        await use(dashboardAt(server.url));
      } finally {
        await server.close();
      }
    },
    { scope: "file" },
  ],
  sinks: [
    // vitest reads a fixture's dependencies from its first parameter's destructuring: none here.
    async ({}, use) => {
      const sinks = {} as Record<"original" | "staging" | "custom", Sink>;
      for (const name of ["original", "staging", "custom"] as const) sinks[name] = await startSink((_req, res) => res.end(`${name} ok`));
      try {
        await use(sinks);
      } finally {
        await Promise.all(Object.values(sinks).map((sink) => sink.close()));
      }
    },
    { scope: "file" },
  ],
  owner: async ({ services }, use) => use(await signedIn(services)),
  intruder: async ({ services }, use) => use(await signedIn(services)),
});

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

function header(raw: string[], name: string): string | undefined {
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.toLowerCase() === name) return raw[i + 1];
  return undefined;
}

const captureOrder = (services: Services, slug: string) => capture(services, slug, body, { headers: sentHeaders, subPath: "/orders", query: "x=1" });

async function settled(database: Pick<TestDatabase, "query">, eventId: string): Promise<string> {
  let status: string | undefined;
  await waitFor(async () => {
    status = (await database.query<{ status: string }>("select status from events where id = $1", [eventId]))[0]?.status;
    return status !== undefined && status !== "pending";
  }, `event ${eventId} to settle`);
  return status!;
}

describe("POST /api/events/{id}/replay", () => {
  test("replays to the original, staging and custom targets with the same bytes and headers, leaving status and health alone", async ({ services, database, dashboard, sinks, owner }) => {
    const endpoint = await createEndpoint(services, { teamId: owner.teamId, name: "replays", destinationUrl: `http://127.0.0.1:${sinks.original.port}/in` });
    await updateEndpoint(services, { teamId: owner.teamId, endpoint: { id: endpoint.id }, changes: { stagingHost: `localhost:${sinks.staging.port}` } });
    const eventId = await captureOrder(services, endpoint.slug);
    expect(await settled(database, eventId)).toBe("delivered");
    const health = async () => (await database.query<{ delivered_count: string; failed_count: string }>("select delivered_count, failed_count from endpoints where id = $1", [endpoint.id]))[0];
    const before = await health();
    const cases = [
      { environment: "original", sink: sinks.original, url: `http://127.0.0.1:${sinks.original.port}/in/orders?x=1` },
      { environment: "staging", sink: sinks.staging, url: `http://localhost:${sinks.staging.port}/in/orders?x=1` },
      { environment: "custom", customUrl: `http://127.0.0.1:${sinks.custom.port}/elsewhere?k=v`, sink: sinks.custom, url: `http://127.0.0.1:${sinks.custom.port}/elsewhere?k=v` },
    ];
    for (const { sink, url, ...request } of cases) {
      const response = await dashboard.replay(owner.cookie, eventId, request);
      expect(response.status, request.environment).toBe(200);
      expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
      const attempt = (await response.json()) as Record<string, unknown>;
      expect(Object.keys(attempt).sort()).toEqual(["destination_id", "destination_url", "id", "latency_ms", "modified", "replayed_at", "response_body", "response_status", "status"]);
      expect(attempt.modified).toBe(false);
      expect(attempt).toMatchObject({ status: "delivered", response_status: 200, response_body: `${request.environment} ok`, destination_url: url });
      const got = sink.received.at(-1)!;
      expect(sha256(got.body)).toBe(sha256(body));
      expect(pairs(got.rawHeaders)).toEqual(sentHeaders);
      expect(got.method).toBe("POST");
    }
    expect(await settled(database, eventId)).toBe("delivered");
    expect(await health()).toEqual(before);
    const rows = await database.query<{ environment: string; user_id: string }>("select environment, user_id from replay_attempts where event_id = $1 order by id", [eventId]);
    expect(rows.map((r) => r.environment)).toEqual(["original", "staging", "custom"]);
    expect(new Set(rows.map((r) => r.user_id))).toEqual(new Set([owner.id]));
  });

  test("replays a failed event to its current destination once it is fixed: the event stays failed", async ({ services, database, dashboard, sinks, owner }) => {
    const broken = await createEndpoint(services, { teamId: owner.teamId, name: "broken", destinationUrl: "http://127.0.0.1:1/nowhere" });
    const failedId = await capture(services, broken.slug, body, { headers: sentHeaders });
    expect(await settled(database, failedId)).toBe("failed");
    await updateEndpoint(services, { teamId: owner.teamId, endpoint: { id: broken.id }, changes: { destinationUrl: `http://127.0.0.1:${sinks.original.port}/fixed` } });
    const response = await dashboard.replay(owner.cookie, failedId, { environment: "original" });
    expect(await response.json()).toMatchObject({ status: "delivered", destination_url: `http://127.0.0.1:${sinks.original.port}/fixed` });
    expect(await settled(database, failedId)).toBe("failed");
  });

  test("signs a replay afresh for a signing endpoint: same webhook-id, a signature that verifies", async ({ services, database, dashboard, sinks, owner }) => {
    const signing = await createEndpoint(services, { teamId: owner.teamId, name: "signing", destinationUrl: `http://127.0.0.1:${sinks.custom.port}/signed`, signRequests: true });
    const { secret } = await endpointSecret(services, { teamId: owner.teamId, endpoint: { id: signing.id } });
    const signedId = await capture(services, signing.slug, '{"type":"signed.event"}');
    await settled(database, signedId);
    const forwarded = sinks.custom.received.at(-1)!;
    expect((await dashboard.replay(owner.cookie, signedId, { environment: "original" })).status).toBe(200);
    const replayed = sinks.custom.received.at(-1)!;
    expect(replayed).not.toBe(forwarded);
    expect(header(forwarded.rawHeaders, "webhook-id")).toBe(signedId);
    expect(header(replayed.rawHeaders, "webhook-id")).toBe(signedId);
    // Standard Webhooks, checked by hand: v1,base64(HMAC-SHA256(secret's bytes, "{id}.{timestamp}.{body}")), a timestamp within 5 minutes.
    const timestamp = header(replayed.rawHeaders, "webhook-timestamp")!;
    expect(Math.abs(Number(timestamp) - Date.now() / 1000)).toBeLessThan(300);
    const expected = createHmac("sha256", Buffer.from(secret.replace(/^whsec_/, ""), "base64")).update(`${signedId}.${timestamp}.`).update(replayed.body).digest("base64");
    expect(header(replayed.rawHeaders, "webhook-signature")!.split(" ")).toContain(`v1,${expected}`);
  });

  test("answers every error with the JSON error shape and the right status", async ({ services, database, dashboard, sinks, owner, intruder }) => {
    const endpoint = await createEndpoint(services, { teamId: owner.teamId, name: "errors", destinationUrl: `http://127.0.0.1:${sinks.original.port}/in` });
    const eventId = await captureOrder(services, endpoint.slug);
    const cases: Array<[string, Response, number, RegExp]> = [
      ["no session", await dashboard.replay(null, eventId, { environment: "original" }), 401, /^Sign in to the dashboard first/i],
      ["foreign Origin", await dashboard.replay(owner.cookie, eventId, { environment: "original" }, { origin: "https://evil.example" }), 403, /cross-site/i],
      ["text/plain", await dashboard.replay(owner.cookie, eventId, { environment: "original" }, { "content-type": "text/plain" }), 415, /application\/json/],
      ["unknown event", await dashboard.replay(owner.cookie, MISSING_ID, { environment: "original" }), 404, /no event/i],
      ["another user's event", await dashboard.replay(intruder.cookie, eventId, { environment: "original" }), 404, /no event/i],
      ["not JSON", await dashboard.replay(owner.cookie, eventId, "{oops"), 400, /JSON object/i],
      ["a JSON array", await dashboard.replay(owner.cookie, eventId, "[]"), 400, /JSON object/i],
      ["unknown environment", await dashboard.replay(owner.cookie, eventId, { environment: "production" }), 400, /environment must be one of/i],
      ["custom without customUrl", await dashboard.replay(owner.cookie, eventId, { environment: "custom" }), 400, /customUrl is required/i],
      ["malformed customUrl", await dashboard.replay(owner.cookie, eventId, { environment: "custom", customUrl: "not a url" }), 400, /customUrl/i],
      ["custom to metadata", await dashboard.replay(owner.cookie, eventId, { environment: "custom", customUrl: "http://169.254.169.254/latest" }), 422, /refused: blocked/i],
    ];
    const captureOnly = await createEndpoint(services, { teamId: owner.teamId, name: "capture only" });
    const capturedId = await captureOrder(services, captureOnly.slug);
    cases.push(["original without destination", await dashboard.replay(owner.cookie, capturedId, { environment: "original" }), 422, /no destination to replay to/i]);
    cases.push(["staging without destination", await dashboard.replay(owner.cookie, capturedId, { environment: "staging" }), 422, /no destination to replay to/i]);
    const noStaging = await createEndpoint(services, { teamId: owner.teamId, name: "no staging", destinationUrl: `http://127.0.0.1:${sinks.original.port}/x` });
    const noStagingEvent = await captureOrder(services, noStaging.slug);
    cases.push(["staging without hostname", await dashboard.replay(owner.cookie, noStagingEvent, { environment: "staging" }), 422, /staging hostname/i]);
    for (const [name, response, status, message] of cases) {
      expect(response.status, name).toBe(status);
      const payload = (await response.json()) as { error: { code: string; message: string } };
      expect(Object.keys(payload), name).toEqual(["error"]);
      expect(payload.error.message, name).toMatch(message);
    }
    // Refused before reading the body: the connection is not kept for another request.
    expect(cases[1]![1].headers.get("connection")).toBe("close");
    const wrongMethod = await fetch(`${dashboard.url}/api/events/${eventId}/replay`, { headers: { cookie: owner.cookie } });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("POST");
    expect(await database.query("select 1 from replay_attempts where event_id = $1", [eventId])).toEqual([]);
  });

  test("takes a request from the dashboard without Origin when Sec-Fetch-Site says same-origin", async ({ services, dashboard, sinks, owner }) => {
    const endpoint = await createEndpoint(services, { teamId: owner.teamId, name: "fetch metadata" });
    const eventId = await captureOrder(services, endpoint.slug);
    const request = (site: string) =>
      fetch(`${dashboard.url}/api/events/${eventId}/replay`, {
        method: "POST",
        headers: { "content-type": "application/json", cookie: owner.cookie, "sec-fetch-site": site },
        body: JSON.stringify({ environment: "custom", customUrl: `http://127.0.0.1:${sinks.custom.port}/meta` }),
      });
    expect((await request("cross-site")).status).toBe(403);
    expect((await request("same-origin")).status).toBe(200);
  });
});

describe("replays to an endpoint's destinations", () => {
  test("destinationId goes to that destination; matched answers every attempt; original on several asks which (400)", async ({ services, database, dashboard, sinks, owner }) => {
    const endpoint = await createEndpoint(services, { teamId: owner.teamId, name: "two", destinationUrl: `http://127.0.0.1:${sinks.original.port}/first` });
    const second = await createDestination(services, { teamId: owner.teamId, endpointId: endpoint.id, name: "Second", url: `http://127.0.0.1:${sinks.custom.port}/second` });
    const eventId = await captureOrder(services, endpoint.slug);
    expect(await settled(database, eventId)).toBe("delivered");
    const ambiguous = await dashboard.replay(owner.cookie, eventId, { environment: "original" });
    expect(ambiguous.status).toBe(400);
    expect(((await ambiguous.json()) as { error: { message: string } }).error.message).toMatch(/went to 2 destinations \(127\.0\.0\.1, Second\)/);
    const chosen = await dashboard.replay(owner.cookie, eventId, { destinationId: second.id });
    expect(chosen.status).toBe(200);
    expect(await chosen.json()).toMatchObject({ destination_id: second.id, destination_url: `http://127.0.0.1:${sinks.custom.port}/second/orders?x=1`, response_body: "custom ok" });
    const matched = await dashboard.replay(owner.cookie, eventId, { environment: "matched" });
    expect(matched.status).toBe(200);
    const answer = (await matched.json()) as { attempts: Array<{ destination_id: string; response_body: string }>; event_resolved: boolean };
    expect(answer.event_resolved).toBe(false);
    expect(answer.attempts.map((attempt) => attempt.response_body)).toEqual(["original ok", "custom ok"]);
    expect(answer.attempts[1]!.destination_id).toBe(second.id);
  });
});

describe("replay targets the server may not reach", () => {
  test("refuses local and loopback replays with private destinations closed (422 with the reason)", async ({ services, sinks, owner }) => {
    // The same graph with ALLOW_PRIVATE_DESTINATIONS off.
    const closed = await mountReplayRoute({ ...services, addressPolicy: { allowPrivate: false } });
    try {
      const endpoint = await createEndpoint(services, { teamId: owner.teamId, name: "closed" });
      const eventId = await captureOrder(services, endpoint.slug);
      const dashboard = dashboardAt(closed.url);
      const local = await dashboard.replay(owner.cookie, eventId, { environment: "local" });
      expect(local.status).toBe(422);
      expect(((await local.json()) as { error: { message: string } }).error.message).toMatch(/refused: blocked: loopback/);
      const loopback = await dashboard.replay(owner.cookie, eventId, { environment: "custom", customUrl: `http://127.0.0.1:${sinks.custom.port}/` });
      expect(loopback.status).toBe(422);
      expect(sinks.custom.received.filter((r) => r.url === "/")).toEqual([]);
    } finally {
      await closed.close();
    }
  });
});
