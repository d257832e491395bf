import { afterAll, beforeAll, describe, expect } from "vitest";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { capture, document, keyWithRole, MISSING_ID, test, unexercised, type ApiServer } from "./api-server.js";

// /api/v1/endpoints/{id}/destinations: add, list, change, resume and remove an endpoint's
// destinations, and where each event went (GET /api/v1/events/{id}'s deliveries).

/** Every field a destination answers with, as the document lists them. */
const FIELDS = [
  "consecutive_failures",
  "created_at",
  "enabled",
  "filter",
  "forwarding_paused",
  "id",
  "name",
  "ordered",
  "pause_after_failures",
  "paused_reason",
  "rate_limit_per_second",
  "retry_policy",
  "url",
];

let sink: Sink;
/** Paths the sink answers 500 (the rest 200). */
const failing = new Set<string>();
beforeAll(async () => {
  sink = await startSink((req, res) => {
    res.writeHead(failing.has(req.url ?? "") ? 500 : 200);
    res.end("ok");
  });
});
afterAll(() => sink.close());

const url = (path: string) => `http://127.0.0.1:${sink.port}${path}`;

interface Endpoint {
  id: string;
  slug: string;
}

async function newEndpoint(api: ApiServer, key: string, name: string, destinationUrl: string | null = url("/first")): Promise<Endpoint> {
  const created = await api.call("POST", "/endpoints", { key, body: { name, ...(destinationUrl ? { destination_url: destinationUrl } : {}) } });
  expect(created.status).toBe(201);
  return created.json as Endpoint;
}

describe("/api/v1/endpoints/{id}/destinations", () => {
  test("adds a destination with every setting (201), lists it after the first, changes it, and removes it (204)", async ({ api, apiKey }) => {
    const key = apiKey.key;
    const endpoint = await newEndpoint(api, key, "Routed");
    const base = `/endpoints/${endpoint.id}/destinations`;
    const settings = {
      name: "Billing",
      url: url("/billing"),
      filter: { "body.type": { $startsWith: "invoice." }, "headers.x-kind": { $in: ["a", "b"] } },
      rate_limit_per_second: 25,
      ordered: true,
      retry_policy: { max_attempts: 3, initial_delay_ms: 1000, max_delay_ms: 60000 },
      pause_after_failures: 10,
    };
    const created = await api.call("POST", base, { key, body: settings });
    expect(created.status).toBe(201);
    expect(Object.keys(created.json).sort()).toEqual(FIELDS);
    expect(created.json).toEqual({ id: expect.any(String), ...settings, enabled: true, consecutive_failures: 0, forwarding_paused: false, paused_reason: null, created_at: expect.any(String) });
    expect(new Date(created.json.created_at).toISOString()).toBe(created.json.created_at);
    const id = created.json.id as string;

    // The endpoint's destination_url is its first destination, named after its host, with the defaults.
    const listed = await api.call("GET", base, { key });
    expect(listed.status).toBe(200);
    expect(Object.keys(listed.json)).toEqual(["data"]);
    expect(listed.json.data).toHaveLength(2);
    expect(listed.json.data[0]).toEqual({
      id: expect.any(String),
      name: "127.0.0.1",
      url: url("/first"),
      enabled: true,
      filter: null,
      rate_limit_per_second: null,
      ordered: false,
      retry_policy: null,
      pause_after_failures: null,
      consecutive_failures: 0,
      forwarding_paused: false,
      paused_reason: null,
      created_at: expect.any(String),
    });
    expect(listed.json.data[1]).toEqual(created.json);
    // A second destination leaves the endpoint's own fields (its first destination's) as they were.
    expect((await api.call("GET", `/endpoints/${endpoint.id}`, { key })).json).toMatchObject({ destination_url: url("/first"), retry_policy: null, pause_after_failures: null });

    // A name defaults to the URL's host.
    const unnamed = await api.call("POST", base, { key, body: { url: "http://localhost:9/in" } });
    expect(unnamed.json).toMatchObject({ name: "localhost", filter: null, ordered: false });

    const changes = {
      name: "Invoices",
      url: url("/invoices"),
      enabled: false,
      filter: null,
      rate_limit_per_second: null,
      ordered: false,
      retry_policy: null,
      pause_after_failures: null,
    };
    const patched = await api.call("PATCH", `${base}/${id}`, { key, body: changes });
    expect(patched.status).toBe(200);
    expect(patched.json).toEqual({ ...created.json, ...changes });
    // A field left out stays as it is; an empty patch changes nothing and answers the destination.
    const renamed = await api.call("PATCH", `${base}/${id}`, { key, body: { name: "Renamed", rate_limit_per_second: 5 } });
    expect(renamed.json).toEqual({ ...patched.json, name: "Renamed", rate_limit_per_second: 5 });
    expect((await api.call("PATCH", `${base}/${id}`, { key, body: {} })).json).toEqual(renamed.json);
    expect((await api.call("GET", base, { key })).json.data.map((d: { id: string }) => d.id)).toEqual([listed.json.data[0].id, id, unnamed.json.id]);

    expect((await api.call("DELETE", `${base}/${id}`, { key })).status).toBe(204);
    const gone = await api.call("DELETE", `${base}/${id}`, { key });
    expect(gone.status).toBe(404);
    expect(gone.json.error.code).toBe("not_found");
    expect((await api.call("PATCH", `${base}/${id}`, { key, body: { name: "back" } })).status).toBe(404);
    expect((await api.call("POST", `${base}/${id}/resume`, { key })).status).toBe(404);
    expect((await api.call("GET", base, { key })).json.data.map((d: { id: string }) => d.id)).toEqual([listed.json.data[0].id, unnamed.json.id]);
  });

  test("refuses bad settings with 400 validation_failed naming the field, and a 21st destination with 409 conflict", async ({ api, apiKey }) => {
    const key = apiKey.key;
    const endpoint = await newEndpoint(api, key, "Limits");
    const base = `/endpoints/${endpoint.id}/destinations`;

    const regex = await api.call("POST", base, { key, body: { url: url("/x"), filter: { "body.a": { $regex: "." } } } });
    expect(regex.status).toBe(400);
    expect(regex.json.error.code).toBe("validation_failed");
    // One sentence naming where in the filter: the dashboard and the CLI show the same.
    expect(regex.json.error.message).toContain("Filter is invalid at filter.body\\.a.$regex: unknown operator $regex.");
    expect(regex.json.error.details).toEqual(expect.arrayContaining([expect.objectContaining({ path: ["filter"] })]));

    for (const bad of [
      {},
      { url: url("/x"), colour: "red" },
      { url: "ftp://example.com/in" },
      { url: url("/x"), rate_limit_per_second: 0 },
      { url: url("/x"), rate_limit_per_second: 10_001 },
      { url: url("/x"), ordered: "yes" },
      { url: url("/x"), name: "" },
      { url: url("/x"), retry_policy: { max_attempts: 0, initial_delay_ms: 1000, max_delay_ms: 1000 } },
      { url: url("/x"), pause_after_failures: 0 },
      { url: url("/x"), filter: { $where: "1" } },
    ]) {
      const refused = await api.call("POST", base, { key, body: bad });
      expect(refused.status, JSON.stringify(bad)).toBe(400);
      expect(refused.json.error.code, JSON.stringify(bad)).toBe("validation_failed");
    }
    const first = (await api.call("GET", base, { key })).json.data[0] as { id: string };
    const badPatch = await api.call("PATCH", `${base}/${first.id}`, { key, body: { filter: { "body.a": { $regex: "." } } } });
    expect(badPatch.status).toBe(400);
    expect(badPatch.json.error.message).toMatch(/\$regex/);
    expect((await api.call("PATCH", `${base}/${first.id}`, { key, body: { url: null } })).status).toBe(400);
    // Nothing refused was stored: the first destination is alone and as it was.
    expect((await api.call("GET", base, { key })).json.data).toEqual([expect.objectContaining({ id: first.id, filter: null, url: url("/first") })]);

    // The first and 19 more make 20: the 21st is refused, saying why.
    for (let i = 1; i < 20; i += 1) expect((await api.call("POST", base, { key, body: { url: url(`/d${i}`) } })).status).toBe(201);
    const tooMany = await api.call("POST", base, { key, body: { url: url("/d20") } });
    expect(tooMany.status).toBe(409);
    expect(tooMany.json.error).toEqual({ code: "conflict", message: expect.stringMatching(/at most 20 destinations/) });
    expect((await api.call("GET", base, { key })).json.data).toHaveLength(20);
  });

  test("keeps teams apart: another team's endpoint and destinations answer 404 to every verb and are left alone", async ({ api, apiKey, stranger }) => {
    const mine = await newEndpoint(api, apiKey.key, "mine");
    const base = `/endpoints/${mine.id}/destinations`;
    const [first] = (await api.call("GET", base, { key: apiKey.key })).json.data as Array<{ id: string }>;
    const asStranger = { key: stranger.key };
    const refusals = [
      await api.call("GET", base, asStranger),
      await api.call("POST", base, { ...asStranger, body: { url: url("/stolen") } }),
      await api.call("PATCH", `${base}/${first!.id}`, { ...asStranger, body: { url: url("/stolen") } }),
      await api.call("PATCH", `${base}/${first!.id}`, { ...asStranger, body: {} }),
      await api.call("POST", `${base}/${first!.id}/resume`, asStranger),
      await api.call("DELETE", `${base}/${first!.id}`, asStranger),
    ];
    for (const refused of refusals) {
      expect(refused.status).toBe(404);
      expect(refused.json.error.code).toBe("not_found");
    }
    // My destination's id under the stranger's own endpoint is no destination of theirs either.
    const theirs = await newEndpoint(api, stranger.key, "theirs");
    expect((await api.call("PATCH", `/endpoints/${theirs.id}/destinations/${first!.id}`, { ...asStranger, body: { name: "x" } })).status).toBe(404);
    expect((await api.call("DELETE", `/endpoints/${theirs.id}/destinations/${first!.id}`, asStranger)).status).toBe(404);
    expect((await api.call("GET", base, { key: apiKey.key })).json.data).toEqual([expect.objectContaining({ id: first!.id, url: url("/first") })]);

    // Missing and malformed ids answer as missing.
    for (const path of [`/endpoints/${MISSING_ID}/destinations`, `/endpoints/not-an-id/destinations`]) expect((await api.call("GET", path, { key: apiKey.key })).status, path).toBe(404);
    expect((await api.call("POST", `/endpoints/${MISSING_ID}/destinations`, { key: apiKey.key, body: { url: url("/x") } })).status).toBe(404);
    for (const id of [MISSING_ID, "not-an-id"]) {
      expect((await api.call("PATCH", `${base}/${id}`, { key: apiKey.key, body: { name: "x" } })).status, id).toBe(404);
      expect((await api.call("POST", `${base}/${id}/resume`, { key: apiKey.key })).status, id).toBe(404);
      expect((await api.call("DELETE", `${base}/${id}`, { key: apiKey.key })).status, id).toBe(404);
    }
  });

  test("a viewer key lists destinations but may not add one (403)", async ({ api, apiKey, services, user }) => {
    const endpoint = await newEndpoint(api, apiKey.key, "viewed");
    const viewer = await keyWithRole(services, user.actor, "viewer");
    const base = `/endpoints/${endpoint.id}/destinations`;
    expect((await api.call("GET", base, { key: viewer })).json.data).toHaveLength(1);
    const refused = await api.call("POST", base, { key: viewer, body: { url: url("/viewer") } });
    expect(refused.status).toBe(403);
    expect(refused.json.error).toEqual({ code: "forbidden", message: expect.stringMatching(/needs the developer role in this team; you are a viewer\.$/) });
    expect((await api.call("GET", base, { key: apiKey.key })).json.data).toHaveLength(1);
  });

  test("resume makes a destination's circuit breaker half-open (200): one probe, then its waiting deliveries are sent", async ({ api, apiKey, services }) => {
    const key = apiKey.key;
    const endpoint = await newEndpoint(api, key, "Breaker");
    const base = `/endpoints/${endpoint.id}/destinations`;
    failing.add("/down");
    const down = (await api.call("POST", base, { key, body: { name: "Down", url: url("/down"), pause_after_failures: 1 } })).json as { id: string };
    const first = await capture(services, endpoint.slug, '{"n":1}');
    const paused = async () => ((await api.call("GET", base, { key })).json.data as Array<{ id: string; forwarding_paused: boolean }>).find((d) => d.id === down.id)!;
    await waitFor(async () => (await paused()).forwarding_paused, "the breaker to trip");
    expect(await paused()).toMatchObject({ forwarding_paused: true, consecutive_failures: 1, paused_reason: "1 consecutive failed attempts (last: destination answered 500)" });
    expect((await api.call("GET", `/events/${first}`, { key })).json.status).toBe("failed");

    // While paused, a new event's delivery to it waits; the other destination gets it at once.
    const held = await capture(services, endpoint.slug, '{"n":2}');
    const deliveries = async (id: string) => (await api.call("GET", `/events/${id}`, { key })).json.deliveries as Array<{ destination_id: string; status: string }>;
    await waitFor(async () => (await deliveries(held))[0]!.status === "delivered", "the first destination's delivery");
    // Held by its paused destination: paused, not "pending" (which reads as retrying), in the event and in the list.
    expect((await deliveries(held))[1]).toMatchObject({ destination_id: down.id, name: "Down", status: "paused" });
    const listed = (await api.call("GET", `/events?endpoint_id=${endpoint.id}`, { key })).json.data as Array<{ id: string; deliveries: Array<{ destination_id: string; status: string }> }>;
    expect(listed.find((event) => event.id === held)!.deliveries.map((delivery) => delivery.status)).toEqual(["delivered", "paused"]);
    expect(listed.find((event) => event.id === first)!.deliveries.map((delivery) => delivery.status)).toEqual(["delivered", "failed"]);

    failing.delete("/down");
    const resumed = await api.call("POST", `${base}/${down.id}/resume`, { key });
    expect(resumed.status).toBe(200);
    expect(Object.keys(resumed.json).sort()).toEqual(FIELDS);
    // Half-open: the count is kept until the probe (the waiting delivery) is delivered.
    expect(resumed.json).toMatchObject({ id: down.id, forwarding_paused: false, paused_reason: null, pause_after_failures: 1, consecutive_failures: 1 });
    await waitFor(async () => (await api.call("GET", `/events/${held}`, { key })).json.status === "delivered", "the waiting delivery to be sent");
    expect(sink.received.filter((r) => r.url === "/down").map((r) => r.body.toString())).toEqual(['{"n":1}', '{"n":2}']);
    const closed = (await api.call("GET", base, { key })).json.data.find((d: { id: string }) => d.id === down.id);
    expect(closed).toMatchObject({ consecutive_failures: 0, forwarding_paused: false });
    // Resuming a destination that is not paused changes nothing.
    expect((await api.call("POST", `${base}/${down.id}/resume`, { key })).json).toEqual(closed);
  });
});

describe("GET /api/v1/events/{id} deliveries", () => {
  test("lists each destination the event went to, or was filtered away from, with its own attempts", async ({ api, apiKey, services }) => {
    const key = apiKey.key;
    const endpoint = await newEndpoint(api, key, "Fan-out", url("/warehouse"));
    const base = `/endpoints/${endpoint.id}/destinations`;
    const warehouse = (await api.call("GET", base, { key })).json.data[0] as { id: string };
    const billing = (await api.call("POST", base, { key, body: { name: "Billing", url: url("/billing"), filter: { "body.type": { $startsWith: "invoice." } } } })).json as { id: string };
    const crm = (await api.call("POST", base, { key, body: { name: "CRM", url: url("/crm"), filter: { "body.type": { $startsWith: "customer." } } } })).json as { id: string };

    const id = await capture(services, endpoint.slug, '{"type":"invoice.paid"}');
    await waitFor(async () => (await api.call("GET", `/events/${id}`, { key })).json.status === "delivered", "the event delivered");
    const event = (await api.call("GET", `/events/${id}`, { key })).json;
    const attempt = { attempt: 1, started_at: expect.any(String), latency_ms: expect.any(Number), response_status: 200, error: null, outcome: "delivered" };
    expect(event.deliveries).toEqual([
      { destination_id: warehouse.id, name: "127.0.0.1", url: url("/warehouse"), status: "delivered", attempts: [attempt], next_attempt_at: null, resolution: null, filter_reason: null },
      { destination_id: billing.id, name: "Billing", url: url("/billing"), status: "delivered", attempts: [attempt], next_attempt_at: null, resolution: null, filter_reason: null },
      { destination_id: crm.id, name: "CRM", url: url("/crm"), status: "filtered", attempts: [], next_attempt_at: null, resolution: null, filter_reason: "no_match" },
    ]);
    // Two destinations: the top-level aliases of a sole delivery are empty; deliveries[] carries each.
    expect(event.response).toBeNull();
    expect(event.attempts).toEqual([]);
    expect(sink.received.filter((r) => r.url === "/crm")).toEqual([]);

    // Filtered away from all but one: response and attempts are that delivery's.
    const order = await capture(services, endpoint.slug, '{"type":"order.created"}');
    await waitFor(async () => (await api.call("GET", `/events/${order}`, { key })).json.status === "delivered", "the order delivered");
    const single = (await api.call("GET", `/events/${order}`, { key })).json;
    expect(single.deliveries.map((delivery: { status: string }) => delivery.status)).toEqual(["delivered", "filtered", "filtered"]);
    expect(single.attempts).toEqual([attempt]);
    expect(single.attempts).toEqual(single.deliveries[0].attempts);
    expect(single.response).toMatchObject({ status: 200, body: "ok", body_encoding: "utf8" });
  });
});

test("the OpenAPI document lists the destination routes", async ({ api }) => {
  const served = (await (await fetch(`${api.url}/api/v1/openapi.json`)).json()) as typeof document;
  const methods = (path: string) => Object.keys(served.paths[path] ?? {}).sort();
  expect(methods("/endpoints/{id}/destinations")).toEqual(["get", "post"]);
  expect(methods("/endpoints/{id}/destinations/{destination_id}")).toEqual(["delete", "patch"]);
  expect(methods("/endpoints/{id}/destinations/{destination_id}/resume")).toEqual(["post"]);
  expect(Object.keys(served.paths["/endpoints/{id}/destinations"]!.post!.responses)).toContain("201");
  expect(Object.keys(served.paths["/endpoints/{id}/destinations/{destination_id}"]!.delete!.responses)).toContain("204");
});

test("exercised every answer its routes declare, each checked against the document", ({ api }) => {
  expect(unexercised(api, "destinations")).toEqual([]);
});
