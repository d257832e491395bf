import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { eventCountMismatches } from "../../../tooling/vitest/src/event-counts.js";
import { DashboardClient } from "./dashboard-client.js";
import { head, rawRequest } from "./raw-http.js";
import { startTestServer, type TestServer } from "./test-server.js";

let t: TestServer;
let sink: Sink;
let document: { paths: Record<string, Record<string, { responses: Record<string, { content?: { "application/json": { schema: object } } }> }>>; components: { schemas: Record<string, object> } };
let keyA: string;
let keyB: string;
let endpointA: { id: string; slug: string };
const eventsA: string[] = [];
const checked: string[] = [];

const ajv = new Ajv2020({ strict: false, validateFormats: false });

/** Calls the API and checks the answer against the OpenAPI document's schema for it. */
async function api(method: string, path: string, options: { key?: string | null; body?: unknown; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...(options.key === null ? {} : { authorization: `Bearer ${options.key ?? keyA}` }), ...options.headers };
  if (options.body !== undefined && !headers["content-type"]) headers["content-type"] = "application/json";
  const response = await fetch(`${t.rehook.url}/api/v1${path}`, {
    method,
    headers,
    ...(options.body !== undefined ? { body: typeof options.body === "string" ? options.body : JSON.stringify(options.body) } : {}),
  });
  const text = await response.text();
  const json = text ? (JSON.parse(text) as Record<string, any>) : undefined;
  expect(response.headers.get("rehook-api-version")).toBe("v1");
  const template = Object.keys(document.paths).find((p) => new RegExp(`^${p.replace(/\{\w+\}/g, "[^/]+")}$`).test(path.split("?")[0]!));
  const operation = template ? document.paths[template]![method.toLowerCase()] : undefined;
  const declared = operation?.responses[String(response.status)];
  if (operation && response.status !== 405) {
    expect(declared, `${method} ${path} answered ${response.status}, which the document does not declare`).toBeDefined();
    const schema = declared!.content?.["application/json"]?.schema;
    if (schema) {
      const validate = ajv.compile({ ...schema, components: document.components } as object);
      expect(validate(json), `${method} ${path} ${response.status}: ${JSON.stringify(validate.errors)}`).toBe(true);
      checked.push(`${method} ${template} ${response.status}`);
    }
  }
  return { status: response.status, json, headers: response.headers };
}

async function keyFor(email: string): Promise<string> {
  const client = new DashboardClient(t.rehook.url);
  await client.postForm("/signup", { email, password: "a long enough password" });
  return ((await client.mutate("apiKeys.create", { name: "tests" })).body.result!.data.json as { key: string }).key;
}

async function capture(slug: string, body: Buffer, contentType = "application/json"): Promise<string> {
  const response = await rawRequest(t.rehook.url, [head("POST", `/api/webhook/${slug}/sub?x=1`, [["Content-Type", contentType], ["X-Dup", "a"], ["X-Dup", "b"], ["Content-Length", String(body.length)]]), body]);
  return JSON.parse(response.body).eventId as string;
}

beforeAll(async () => {
  t = await startTestServer({ ALLOW_PRIVATE_DESTINATIONS: "true", API_RATE_LIMIT_PER_MINUTE: "200" });
  sink = await startSink((_req, res) => res.end("thanks"));
  document = (await (await fetch(`${t.rehook.url}/api/v1/openapi.json`)).json()) as typeof document;
  keyA = await keyFor("api-a@example.com");
  keyB = await keyFor("api-b@example.com");
});
afterAll(async () => {
  await t.close();
  await sink.close();
});

describe("the OpenAPI document", () => {
  it("is a valid OpenAPI 3.1 document describing every route", async () => {
    const result = await new Validator().validate(document as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(Object.keys(document.paths).sort()).toEqual([
      "/endpoints",
      "/endpoints/{id}",
      "/endpoints/{id}/resume",
      "/endpoints/{id}/retry-failed",
      "/endpoints/{id}/stream",
      "/events",
      "/events/export",
      "/events/{id}",
      "/events/{id}/body",
      "/events/{id}/local-replays",
      "/events/{id}/replay",
      "/events/{id}/retry",
    ]);
  });
});

describe("/api/v1 endpoints", () => {
  it("creates (201), lists with meta, updates and deletes (204) endpoints", async () => {
    const created = await api("POST", "/endpoints", { body: { name: "API orders", destination_url: `http://127.0.0.1:${sink.port}/in` } });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ name: "API orders", destination_url: `http://127.0.0.1:${sink.port}/in`, health: { state: "capturing", success_rate: null }, keep_proxy_headers: false });
    endpointA = created.json as { id: string; slug: string };
    const second = await api("POST", "/endpoints", { body: { name: "to delete" } });
    const listed = await api("GET", "/endpoints?limit=1&offset=1");
    expect(listed.json).toMatchObject({ data: [{ id: second.json!.id }], meta: { total: 2, limit: 1, offset: 1 } });
    const patched = await api("PATCH", `/endpoints/${second.json!.id}`, { body: { name: "renamed", destination_url: null, keep_proxy_headers: true } });
    expect(patched).toMatchObject({ status: 200, json: { name: "renamed", destination_url: null, keep_proxy_headers: true, retention_days: null, kept_for_days: 30 } });
    const kept = await api("PATCH", `/endpoints/${second.json!.id}`, { body: { retention_days: 7 } });
    expect(kept.json).toMatchObject({ retention_days: 7, kept_for_days: 7 });
    expect(await api("GET", `/endpoints/${second.json!.id}`)).toMatchObject({ status: 200, json: { id: second.json!.id, name: "renamed", retention_days: 7, health: { state: expect.any(String) } } });
    expect((await api("PATCH", `/endpoints/${second.json!.id}`, { body: { retention_days: 0 } })).json).toMatchObject({ retention_days: 0, kept_for_days: 0 });
    const tooLong = await api("PATCH", `/endpoints/${second.json!.id}`, { body: { retention_days: 5000 } });
    expect(tooLong.status).toBe(400);
    expect((await api("DELETE", `/endpoints/${second.json!.id}`)).status).toBe(204);
    expect((await api("DELETE", `/endpoints/${second.json!.id}`)).status).toBe(404);
  });

  it("refuses bad input with 400 and the zod issues, internal destinations with the reason", async () => {
    const missing = await api("POST", "/endpoints", { body: {} });
    expect(missing.status).toBe(400);
    expect(missing.json!.error.code).toBe("validation_failed");
    expect(Array.isArray(missing.json!.error.details)).toBe(true);
    const extra = await api("POST", "/endpoints", { body: { name: "x", colour: "red" } });
    expect(extra.status).toBe(400);
    const internal = await api("POST", "/endpoints", { body: { name: "x", destination_url: "http://169.254.169.254/" } });
    expect(internal.status).toBe(400);
    expect(internal.json!.error.message).toMatch(/blocked/);
  });
});

describe("/api/v1 events", () => {
  it("lists newest first with filters and offset pagination meta", async () => {
    for (let i = 0; i < 3; i += 1) eventsA.push(await capture(endpointA.slug, Buffer.from(JSON.stringify({ type: `order.${i}` }))));
    await waitFor(async () => ((await api("GET", `/events?status=delivered&endpoint_id=${endpointA.id}`)).json!.meta.total as number) === 3, "deliveries");
    const page = await api("GET", `/events?endpoint_id=${endpointA.id}&limit=2&offset=1`);
    expect(page.json!.meta).toEqual({ total: 3, total_capped: false, limit: 2, offset: 1, next_cursor: null });
    expect(page.json!.data.map((e: { id: string }) => e.id)).toEqual([eventsA[1], eventsA[0]]);
    expect(page.json!.data[0]).toMatchObject({ event_type: "order.1", status: "delivered" });
    const defaults = await api("GET", "/events");
    expect(defaults.json!.meta).toMatchObject({ limit: 20, offset: 0 });
    expect((await api("GET", "/events?status=unknown")).status).toBe(400);
    expect((await api("GET", "/events?limit=101")).status).toBe(400);
    expect((await api("GET", "/events?limit=0")).status).toBe(400);
  });

  it("pages by an opaque cursor, caps the offset with a pointer to it, and filters by type and time", async () => {
    const first = await api("GET", `/events?endpoint_id=${endpointA.id}&limit=2`);
    expect(first.json!.meta).toMatchObject({ total: 3, total_capped: false, limit: 2, offset: 0 });
    const cursor = first.json!.meta.next_cursor as string;
    expect(cursor).not.toMatch(/-/);
    const second = await api("GET", `/events?endpoint_id=${endpointA.id}&limit=2&cursor=${cursor}`);
    expect([...first.json!.data, ...second.json!.data].map((e: { id: string }) => e.id)).toEqual([...eventsA].reverse());
    expect(second.json!.meta.next_cursor).toBeNull();

    const deep = await api("GET", "/events?offset=10001");
    expect(deep.status).toBe(400);
    expect(deep.json!.error.message).toMatch(/cursor/);
    expect((await api("GET", `/events?cursor=not-a-cursor`)).json!.error.message).toBe("This cursor is not one this API gave. Pass meta.next_cursor back as it came.");
    expect((await api("GET", `/events?cursor=${cursor}&offset=1`)).status).toBe(400);

    const typed = await api("GET", `/events?event_type=order.2`);
    expect(typed.json!.data.map((e: { id: string }) => e.id)).toEqual([eventsA[2]]);
    expect(typed.json!.meta).toMatchObject({ total: 1, total_capped: false });
    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await api("GET", `/events?endpoint_id=${endpointA.id}&received_after=${future}`)).json!.data).toEqual([]);
    const before = await api("GET", `/events?endpoint_id=${endpointA.id}&received_before=${encodeURIComponent(future)}`);
    expect(before.json!.data).toHaveLength(3);
    expect((await api("GET", "/events?received_after=yesterday")).json!.error.message).toMatch(/ISO 8601/);
    const found = await api("GET", `/events?q=${encodeURIComponent('"ORDER.1"')}`);
    expect(found.json!.data.map((e: { id: string }) => e.id)).toEqual([eventsA[1]]);
    expect((await api("GET", `/events?q=${"x".repeat(201)}`)).status).toBe(400);
  });

  it("gets an event with headers in order, the payload by encoding and the response", async () => {
    const json = await api("GET", `/events/${eventsA[0]}`);
    expect(json.json).toMatchObject({
      id: eventsA[0],
      endpoint_id: endpointA.id,
      method: "POST",
      path: "/sub",
      query: "x=1",
      payload: { type: "order.0" },
      payload_encoding: "json",
      response: { status: 200, body: "thanks", body_encoding: "utf8" },
      replay_count: 0,
    });
    expect((json.json!.headers as Array<[string, string]>).filter(([n]) => n === "X-Dup")).toEqual([["X-Dup", "a"], ["X-Dup", "b"]]);
    const text = await api("GET", `/events/${await capture(endpointA.slug, Buffer.from("plain words"), "text/plain")}`);
    expect(text.json).toMatchObject({ payload: "plain words", payload_encoding: "utf8" });
    const bytes = Buffer.from([0, 1, 2, 255]);
    const binary = await api("GET", `/events/${await capture(endpointA.slug, bytes, "application/octet-stream")}`);
    expect(binary.json).toMatchObject({ payload: bytes.toString("base64"), payload_encoding: "base64" });
  });

  it("replays an event to a URL and counts it", async () => {
    const replayed = await api("POST", `/events/${eventsA[0]}/replay`, { body: { destination_url: `http://127.0.0.1:${sink.port}/again` } });
    expect(replayed.status).toBe(200);
    expect(Object.keys(replayed.json!).sort()).toEqual(["destination_url", "id", "latency_ms", "modified", "replayed_at", "response_status", "status"]);
    expect(replayed.json).toMatchObject({ status: "delivered", response_status: 200, destination_url: `http://127.0.0.1:${sink.port}/again` });
    expect(sink.received.at(-1)!.url).toBe("/again");
    expect((await api("GET", `/events/${eventsA[0]}`)).json!.replay_count).toBe(1);
    expect((await api("POST", `/events/${eventsA[0]}/replay`, { body: { destination_url: "not a url" } })).status).toBe(400);
    expect((await api("POST", `/events/${eventsA[0]}/replay`, { body: { destination_url: "http://169.254.169.254/x" } })).status).toBe(422);
    expect((await api("POST", `/events/${eventsA[0]}/replay`, { body: "{broken" })).status).toBe(400);
    expect((await api("POST", `/events/${eventsA[0]}/replay`, { body: "x", headers: { "content-type": "text/plain" } })).status).toBe(415);
    expect((await api("POST", `/events/${eventsA[0]}/replay`, { body: { destination_url: "x".repeat(2 * 1024 * 1024) } })).status).toBe(413);
  });

  it("records a local replay whose error text carries NUL and a lone surrogate, cleaned instead of a 500", async () => {
    const recorded = await api("POST", `/events/${eventsA[0]}/local-replays`, { body: { status: null, latency_ms: 3, error: "refused\u0000 \ud800 here" } });
    expect(recorded.status).toBe(201);
    const [row] = await t.db.query<{ error: string }>("select error from replay_attempts where id = $1", [recorded.json!.id]);
    expect(row!.error).toBe("refused\ufffd \ufffd here");
  });

  it("deletes one event with its attempts and replays (204), keeps the counts true, and answers 404 to another user and after", async () => {
    const doomed = await capture(endpointA.slug, Buffer.from('{"delete":"me"}'));
    await waitFor(async () => (await api("GET", `/events/${doomed}`)).json!.status !== "pending", "the event to be delivered");
    await api("POST", `/events/${doomed}/replay`, { body: { destination_url: `http://127.0.0.1:${sink.port}/before-delete` } });
    const before = (await api("GET", `/events?endpoint_id=${endpointA.id}`)).json!.meta.total as number;

    expect((await api("DELETE", `/events/${doomed}`, { key: keyB })).status).toBe(404);
    expect((await api("GET", `/events/${doomed}`)).status).toBe(200);
    expect((await api("DELETE", `/events/${doomed}`)).status).toBe(204);

    const gone = await api("GET", `/events/${doomed}`);
    expect(gone.status).toBe(404);
    expect(gone.json!.error.message).toMatch(/^There is no event with the id .+\. It may have been deleted already\.$/);
    expect((await api("DELETE", `/events/${doomed}`)).status).toBe(404);
    expect(await t.db.query("select 1 from replay_attempts where event_id = $1 union all select 1 from delivery_attempts where event_id = $1", [doomed])).toEqual([]);
    expect((await api("GET", `/events?endpoint_id=${endpointA.id}`)).json!.meta.total).toBe(before - 1);
    expect(await eventCountMismatches(t.db)).toEqual([]);
  });

  it("lists each endpoint with its event count and its newest event's time, kept true by a delete", async () => {
    const quiet = (await api("POST", "/endpoints", { body: { name: "Counted" } })).json as { id: string; slug: string };
    const listed = async () => (await api("GET", "/endpoints?limit=100")).json!.data.find((e: { id: string }) => e.id === quiet.id) as { event_count: number; last_event_at: string | null };
    expect(await listed()).toMatchObject({ event_count: 0, last_event_at: null });

    const ids: string[] = [];
    for (const n of [1, 2, 3]) ids.push(await capture(quiet.slug, Buffer.from(`{"n":${n}}`)));
    const receivedAt = async (id: string) => (await api("GET", `/events/${id}`)).json!.received_at as string;
    expect(await listed()).toEqual(expect.objectContaining({ event_count: 3, last_event_at: await receivedAt(ids[2]!) }));

    // The newest goes: the count drops by one and the time is the one before it.
    expect((await api("DELETE", `/events/${ids[2]}`)).status).toBe(204);
    expect(await listed()).toEqual(expect.objectContaining({ event_count: 2, last_event_at: await receivedAt(ids[1]!) }));
    // The endpoint's other numbers are untouched, and A's own endpoint is counted too.
    const all = (await api("GET", "/endpoints?limit=100")).json!.data as Array<{ id: string; event_count: number }>;
    expect(all.find((e) => e.id === endpointA.id)!.event_count).toBe((await api("GET", `/events?endpoint_id=${endpointA.id}`)).json!.meta.total);
  });
});

describe("/api/v1 retries, attempts and the circuit breaker", () => {
  let failing: Sink;
  let flaky: { id: string; slug: string };
  let failedEvent: string;
  const policy = { max_attempts: 2, initial_delay_ms: 100, max_delay_ms: 100 };

  beforeAll(async () => {
    failing = await startSink((_req, res) => {
      res.statusCode = 500;
      res.end("down");
    });
  });
  afterAll(() => failing.close());

  const eventOf = async (id: string) => (await api("GET", `/events/${id}`)).json!;

  it("creates and patches endpoints with a retry policy and a breaker threshold, echoed on reads, and refuses ones out of bounds", async () => {
    const created = await api("POST", "/endpoints", { body: { name: "API flaky", destination_url: `http://127.0.0.1:${failing.port}/in`, retry_policy: policy, pause_after_failures: 100 } });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ retry_policy: policy, pause_after_failures: 100, forwarding_paused: false, paused_reason: null, paused_at: null });
    flaky = created.json as { id: string; slug: string };
    expect((await api("GET", "/endpoints?limit=100")).json!.data.find((e: { id: string }) => e.id === flaky.id)).toMatchObject({ retry_policy: policy });
    const defaults = await api("POST", "/endpoints", { body: { name: "API defaults" } });
    expect(defaults.json).toMatchObject({ retry_policy: null, pause_after_failures: null, forwarding_paused: false });
    const cleared = await api("PATCH", `/endpoints/${defaults.json!.id}`, { body: { retry_policy: { max_attempts: 5, initial_delay_ms: 240000, max_delay_ms: 1920000 }, pause_after_failures: 3 } });
    expect(cleared.json).toMatchObject({ retry_policy: { max_attempts: 5 }, pause_after_failures: 3 });
    expect((await api("PATCH", `/endpoints/${defaults.json!.id}`, { body: { retry_policy: null, pause_after_failures: null } })).json).toMatchObject({ retry_policy: null, pause_after_failures: null });
    for (const bad of [
      { retry_policy: { ...policy, max_attempts: 21 } },
      { retry_policy: { ...policy, max_attempts: 0 } },
      { retry_policy: { ...policy, initial_delay_ms: 99 } },
      { retry_policy: { ...policy, initial_delay_ms: 5000, max_delay_ms: 1000 } },
      { retry_policy: { max_attempts: 3 } },
      { pause_after_failures: 0 },
    ]) {
      const refused = await api("PATCH", `/endpoints/${defaults.json!.id}`, { body: bad });
      expect(refused.status, JSON.stringify(bad)).toBe(400);
      expect(refused.json!.error.code).toBe("validation_failed");
    }
    expect((await api("PATCH", `/endpoints/${defaults.json!.id}`, { body: { retry_policy: { ...policy, initial_delay_ms: 5000, max_delay_ms: 1000 } } })).json!.error.message).toMatch(/max_delay_ms/);
  });

  it("lists every attempt of an event; next_attempt_at is null once its outcome is final", async () => {
    failedEvent = await capture(flaky.slug, Buffer.from("{}"));
    await waitFor(async () => (await eventOf(failedEvent)).status === "failed", "both attempts to fail");
    const event = await eventOf(failedEvent);
    expect(event.next_attempt_at).toBeNull();
    expect(event.attempts).toHaveLength(2);
    expect(event.attempts.map((a: { attempt: number; outcome: string; response_status: number }) => [a.attempt, a.outcome, a.response_status])).toEqual([
      [1, "failed", 500],
      [2, "failed", 500],
    ]);
    // A delivered event has its one attempt.
    expect((await eventOf(eventsA[0]!)).attempts).toMatchObject([{ attempt: 1, outcome: "delivered", response_status: 200, error: null }]);
  });

  it("retries an event now (202), and a whole endpoint's failed events; refuses what does not apply", async () => {
    const retried = await api("POST", `/events/${failedEvent}/retry`);
    expect(retried.status).toBe(202);
    expect(retried.json).toMatchObject({ id: failedEvent, status: "pending", forwarding_paused: false });
    await waitFor(async () => (await eventOf(failedEvent)).attempts.length === 3, "the new attempt");
    await waitFor(async () => (await eventOf(failedEvent)).status === "failed", "the event to fail again");
    const again = await api("POST", `/endpoints/${flaky.id}/retry-failed`);
    expect(again).toMatchObject({ status: 202, json: { count: 1, forwarding_paused: false } });
    await waitFor(async () => (await eventOf(failedEvent)).attempts.length === 4, "the bulk attempt");

    const delivered = await api("POST", `/events/${eventsA[0]}/retry`);
    expect(delivered.status).toBe(409);
    expect(delivered.json!.error).toMatchObject({ code: "conflict" });
    expect(delivered.json!.error.message).toMatch(/delivered/);
    const captureOnly = await api("POST", "/endpoints", { body: { name: "API capture only" } });
    const captured = await capture((captureOnly.json as { slug: string }).slug, Buffer.from("{}"));
    expect((await api("POST", `/events/${captured}/retry`)).status).toBe(422);
    expect((await api("POST", "/events/00000000-0000-7000-8000-000000000000/retry")).status).toBe(404);
  });

  it("resumes an endpoint (200 with the endpoint), and keeps other users out of all of it", async () => {
    const resumed = await api("POST", `/endpoints/${flaky.id}/resume`);
    expect(resumed).toMatchObject({ status: 200, json: { id: flaky.id, forwarding_paused: false, paused_reason: null } });
    const asB = { key: keyB };
    expect((await api("POST", `/events/${failedEvent}/retry`, asB)).status).toBe(404);
    expect((await api("POST", `/endpoints/${flaky.id}/retry-failed`, asB)).status).toBe(404);
    expect((await api("POST", `/endpoints/${flaky.id}/resume`, asB)).status).toBe(404);
    expect((await api("GET", `/events/${failedEvent}`, asB)).status).toBe(404);
  });
});

describe("keys, tenancy and errors", () => {
  it("answers 401 with one body for a missing, malformed, unknown or revoked key", async () => {
    const bodies = [
      await api("GET", "/events", { key: null }),
      await api("GET", "/events", { key: "not-a-key" }),
      await api("GET", "/events", { key: `${keyA.slice(0, -1)}${keyA.endsWith("a") ? "b" : "a"}` }),
    ];
    const revokedClient = new DashboardClient(t.rehook.url);
    await revokedClient.postForm("/signup", { email: "revoker@example.com", password: "a long enough password" });
    const created = (await revokedClient.mutate("apiKeys.create", { name: "soon revoked" })).body.result!.data.json as { key: string; apiKey: { id: string } };
    expect((await api("GET", "/events", { key: created.key })).status).toBe(200);
    await revokedClient.mutate("apiKeys.revoke", { id: created.apiKey.id });
    bodies.push(await api("GET", "/events", { key: created.key }));
    for (const answer of bodies) {
      expect(answer.status).toBe(401);
      expect(answer.json).toEqual(bodies[0]!.json);
    }
  });

  it("notes when a key was last used, at most once a minute", async () => {
    const lastUsed = async () =>
      (await t.db.query<{ last_used_at: Date | null }>("select last_used_at from api_keys where prefix = $1", [keyB.slice(0, 12)]))[0]!.last_used_at;
    await api("GET", "/endpoints", { key: keyB });
    const first = await lastUsed();
    expect(first).not.toBeNull();
    await api("GET", "/endpoints", { key: keyB });
    expect(await lastUsed()).toEqual(first);
    await t.db.query("update api_keys set last_used_at = now() - interval '2 minutes' where prefix = $1", [keyB.slice(0, 12)]);
    await api("GET", "/endpoints", { key: keyB });
    expect((await lastUsed())!.getTime()).toBeGreaterThan(first!.getTime() - 1000);
  });

  it("keeps users apart: B gets 404 on A's ids and never sees A's rows", async () => {
    const asB = { key: keyB };
    expect((await api("GET", `/events/${eventsA[0]}`, asB)).status).toBe(404);
    expect((await api("POST", `/events/${eventsA[0]}/replay`, { ...asB, body: { destination_url: `http://127.0.0.1:${sink.port}/b` } })).status).toBe(404);
    expect((await api("PATCH", `/endpoints/${endpointA.id}`, { ...asB, body: { name: "mine now" } })).status).toBe(404);
    expect((await api("GET", `/endpoints/${endpointA.id}`, asB)).status).toBe(404);
    expect((await api("DELETE", `/endpoints/${endpointA.id}`, asB)).status).toBe(404);
    expect((await api("GET", "/events", asB)).json).toMatchObject({ data: [], meta: { total: 0 } });
    expect((await api("GET", `/events?endpoint_id=${endpointA.id}`, asB)).json!.meta.total).toBe(0);
    expect((await api("GET", "/endpoints", asB)).json).toMatchObject({ data: [], meta: { total: 0 } });
  });

  it("answers 404 for unknown paths and 405 with Allow for a wrong method", async () => {
    expect((await api("GET", "/nothing")).status).toBe(404);
    const wrong = await api("PUT", "/endpoints");
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("GET, POST");
    expect(wrong.json!.error.code).toBe("method_not_allowed");
  });

  it("limits requests per key with 429 and Retry-After", async () => {
    const limited = await keyFor("busy@example.com");
    let last = { status: 0, headers: new Headers() };
    for (let i = 0; i < 201 && last.status !== 429; i += 1) last = await api("GET", "/endpoints", { key: limited });
    expect(last.status).toBe(429);
    expect(Number(last.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await api("GET", "/endpoints", { key: keyB })).status).toBe(200);
  });

  it("validated every answer above against the document", () => {
    for (const expected of ["GET /events 200", "GET /events/{id} 200", "POST /events/{id}/replay 200", "GET /endpoints 200", "POST /endpoints 201", "PATCH /endpoints/{id} 200", "GET /endpoints/{id} 200", "GET /endpoints/{id} 404", "GET /events 401", "GET /endpoints 429", "POST /events/{id}/replay 422", "GET /events 400",
      "POST /events/{id}/retry 202", "POST /events/{id}/retry 409", "POST /events/{id}/retry 422", "POST /endpoints/{id}/retry-failed 202", "POST /endpoints/{id}/resume 200", "GET /events/{id} 404"]) {
      expect(checked).toContain(expected);
    }
  });
});

describe("PUBLIC_API_ENABLED=false", () => {
  it("turns every /api/v1 route into 404", async () => {
    const off = await startTestServer({ PUBLIC_API_ENABLED: "false" }, t.db);
    try {
      for (const path of ["/api/v1/events", "/api/v1/openapi.json", "/api/v1/endpoints"]) {
        const response = await fetch(`${off.rehook.url}${path}`, { headers: { authorization: `Bearer ${keyA}` } });
        expect(response.status, path).toBe(404);
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe("not_found");
      }
    } finally {
      await off.close();
    }
  });
});
