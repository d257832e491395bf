import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uuidv7 } from "@rehook/core";
import { startSink, type Received, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { DashboardClient } from "./dashboard-client.js";
import { head, rawRequest } from "./raw-http.js";
import { startTestServer, type TestServer } from "./test-server.js";

let t: TestServer;
let sink: Sink;
let dashboard: DashboardClient;
let apiKey: string;

beforeAll(async () => {
  t = await startTestServer({ ALLOW_PRIVATE_DESTINATIONS: "true" });
  sink = await startSink((_req, res) => res.end("ok"));
  dashboard = new DashboardClient(t.rehook.url);
  await dashboard.postForm("/signup", { email: "proxy-headers@example.com", password: "a long enough password" });
  apiKey = ((await dashboard.mutate("apiKeys.create", { name: "tests" })).body.result!.data.json as { key: string }).key;
});
afterAll(async () => {
  await t.close();
  await sink.close();
});

interface ApiEndpoint {
  id: string;
  slug: string;
  keep_proxy_headers: boolean;
}

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(`${t.rehook.url}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : null };
}

const PROXY_HEADERS: Array<[string, string]> = [
  ["X-Forwarded-For", "203.0.113.7"],
  ["X-Forwarded-Host", "admin.internal"],
  ["x-forwarded-proto", "https"],
  ["X-Forwarded-Prefix", "/admin"],
  ["Forwarded", "for=203.0.113.7;host=admin.internal;proto=https"],
  ["X-Real-IP", "203.0.113.7"],
];
const PROXY_NAMES = new Set(PROXY_HEADERS.map(([name]) => name.toLowerCase()));

/** Captures a request carrying the proxy headers (and two ordinary ones) and answers its event id. */
async function capture(slug: string, tag: string): Promise<string> {
  const body = Buffer.from(JSON.stringify({ type: "proxy.test" }));
  const headers: Array<[string, string]> = [["Content-Type", "application/json"], ["X-Tag", tag], ...PROXY_HEADERS, ["Content-Length", String(body.length)]];
  const response = await rawRequest(t.rehook.url, [head("POST", `/api/webhook/${slug}`, headers), body]);
  expect(response.status).toBe(200);
  return JSON.parse(response.body).eventId as string;
}

async function arrival(path: string): Promise<Received> {
  let found: Received | undefined;
  await waitFor(() => (found = sink.received.find((request) => request.url === path)) !== undefined, `a request to ${path}`);
  return found!;
}

function proxyHeadersOf(request: Received): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    if (PROXY_NAMES.has(request.rawHeaders[i]!.toLowerCase())) pairs.push([request.rawHeaders[i]!, request.rawHeaders[i + 1]!]);
  }
  return pairs;
}

function tagOf(request: Received): string | undefined {
  const index = request.rawHeaders.findIndex((name, i) => i % 2 === 0 && name.toLowerCase() === "x-tag");
  return index === -1 ? undefined : request.rawHeaders[index + 1];
}

async function createEndpoint(name: string, path: string, keep?: boolean): Promise<ApiEndpoint> {
  const created = await api("POST", "/endpoints", { name, destination_url: `http://127.0.0.1:${sink.port}${path}`, ...(keep === undefined ? {} : { keep_proxy_headers: keep }) });
  expect(created.status).toBe(201);
  return created.json as ApiEndpoint;
}

/** An event as an instance that crashed before sending left it: pending and unleased, so the recovery claim sends it. */
async function storeUnleased(endpointId: string, tag: string): Promise<void> {
  await t.db.query(
    `with event as (
       insert into events (id, endpoint_id, received_at, method, path, query, headers, body, content_type, size_bytes, client_ip,
                           source, event_type, status, destination_url)
       select $1, endpoint_id, now(), 'POST', '/claimed', '', $2::json, '{}'::bytea, 'application/json', 2, null, 'unknown', 'unknown', 'pending', url
       from destinations where endpoint_id = $3 and position = 0
       returning id
     )
     insert into deliveries (event_id, destination_id, endpoint_id, status, attempts)
     select event.id, d.id, d.endpoint_id, 'pending', 0 from event, destinations d where d.endpoint_id = $3 and d.position = 0`,
    [uuidv7(), JSON.stringify([["Content-Type", "application/json"], ["X-Tag", tag], ...PROXY_HEADERS]), endpointId],
  );
}

describe("proxy headers", () => {
  it("are dropped from forwards by default; other headers pass", async () => {
    const endpoint = await createEndpoint("Default", "/default");
    expect(endpoint.keep_proxy_headers).toBe(false);
    await capture(endpoint.slug, "default");
    const received = await arrival("/default");
    expect(tagOf(received)).toBe("default");
    expect(proxyHeadersOf(received)).toEqual([]);
  });

  it("are forwarded, in order, by an endpoint that opts in", async () => {
    const endpoint = await createEndpoint("Kept", "/kept", true);
    expect(endpoint.keep_proxy_headers).toBe(true);
    await capture(endpoint.slug, "kept");
    expect(proxyHeadersOf(await arrival("/kept"))).toEqual(PROXY_HEADERS);
  });

  it("follow the endpoint's setting on the recovery path too (events claimed from the database)", async () => {
    const dropping = await createEndpoint("Claimed dropping", "/claimed-dropping");
    const keeping = await createEndpoint("Claimed keeping", "/claimed-keeping", true);
    await storeUnleased(dropping.id, "claimed-dropping");
    await storeUnleased(keeping.id, "claimed-keeping");
    let dropped: Received | undefined;
    let kept: Received | undefined;
    await waitFor(() => {
      dropped = sink.received.find((request) => tagOf(request) === "claimed-dropping");
      kept = sink.received.find((request) => tagOf(request) === "claimed-keeping");
      return dropped !== undefined && kept !== undefined;
    }, "both stored events to be claimed and sent");
    expect(proxyHeadersOf(dropped!)).toEqual([]);
    expect(proxyHeadersOf(kept!)).toEqual(PROXY_HEADERS);
  });

  it("follow the endpoint's current setting on replays", async () => {
    const endpoint = await createEndpoint("Replayed", "/replayed");
    const eventId = await capture(endpoint.slug, "replayed");
    await arrival("/replayed");
    const replay = async (path: string) => {
      const answer = await api("POST", `/events/${eventId}/replay`, { destination_url: `http://127.0.0.1:${sink.port}${path}` });
      expect(answer.status).toBe(200);
      return arrival(path);
    };
    expect(proxyHeadersOf(await replay("/replay-dropping"))).toEqual([]);
    expect((await api("PATCH", `/endpoints/${endpoint.id}`, { keep_proxy_headers: true })).status).toBe(200);
    expect(proxyHeadersOf(await replay("/replay-keeping"))).toEqual(PROXY_HEADERS);
  });
});

describe("keep_proxy_headers on the endpoint", () => {
  it("round-trips through the public API: create, list, update", async () => {
    const plain = await createEndpoint("API default", "/api-default");
    const listed = async () => ((await api("GET", "/endpoints?limit=100")).json.data as ApiEndpoint[]).find((endpoint) => endpoint.id === plain.id)!;
    expect((await listed()).keep_proxy_headers).toBe(false);
    const patched = await api("PATCH", `/endpoints/${plain.id}`, { keep_proxy_headers: true });
    expect(patched).toMatchObject({ status: 200, json: { id: plain.id, keep_proxy_headers: true } });
    expect((await listed()).keep_proxy_headers).toBe(true);
    // A change of something else leaves it alone.
    expect((await api("PATCH", `/endpoints/${plain.id}`, { name: "API renamed" })).json).toMatchObject({ name: "API renamed", keep_proxy_headers: true });
    expect((await api("PATCH", `/endpoints/${plain.id}`, { keep_proxy_headers: false })).json.keep_proxy_headers).toBe(false);
    expect((await api("PATCH", `/endpoints/${plain.id}`, { keep_proxy_headers: "yes" })).status).toBe(400);
    expect((await api("POST", "/endpoints", { name: "x", keep_proxy_headers: 1 })).status).toBe(400);
  });

  it("is a checkbox on the endpoint page, next to signing and what a signature proves", async () => {
    const created = await dashboard.mutate("endpoints.create", { name: "Page", destinationUrl: `http://127.0.0.1:${sink.port}/page` });
    const endpoint = created.body.result!.data.json as { id: string; name: string; keepProxyHeaders: boolean };
    expect(endpoint.keepProxyHeaders).toBe(false);
    const page = await (await dashboard.get(`/endpoints/${endpoint.id}`)).text();
    expect(page).toContain('name="keepProxyHeaders"');
    expect(page).toContain("proves that Rehook forwarded this exact request, not who originally sent it");

    const save = (fields: Record<string, string>) =>
      dashboard.postForm(`/endpoints/${endpoint.id}`, { intent: "update", name: "Page", destinationUrl: `http://127.0.0.1:${sink.port}/page`, ...fields });
    expect((await save({ keepProxyHeaders: "on" })).status).toBe(200);
    const read = async () => ((await dashboard.query("endpoints.get", { id: endpoint.id })).body.result!.data.json as { keepProxyHeaders: boolean }).keepProxyHeaders;
    expect(await read()).toBe(true);
    expect((await save({})).status).toBe(200);
    expect(await read()).toBe(false);
    await dashboard.mutate("endpoints.update", { id: endpoint.id, keepProxyHeaders: true });
    expect(await read()).toBe(true);
  });
});
