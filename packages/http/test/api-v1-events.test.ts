import { describe, expect } from "vitest";
import type { Services } from "@rehook/services";
import { eventCountMismatches } from "@rehook/vitest-config/event-counts";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { capture, MISSING_ID, test as base, unexercised, type ApiServer } from "./api-server.js";

// /api/v1/events: list, export, read, download the body, delete.

const test = base.extend<{ sink: Sink }>({
  /** A destination that answers "thanks" to everything. */
  sink: [
    // vitest reads a fixture's dependencies from its first parameter's destructuring: none here.
    async ({}, use) => {
      const sink = await startSink((_req, res) => res.end("thanks"));
      try {
        await use(sink);
      } finally {
        await sink.close();
      }
    },
    { scope: "file" },
  ],
});

const DUPLICATED: Array<[string, string]> = [
  ["Content-Type", "application/json"],
  ["X-Dup", "a"],
  ["X-Dup", "b"],
];

/** An endpoint forwarding to the sink with three delivered events, order.0 to order.2 (oldest first). */
async function orders(api: ApiServer, services: Services, key: string, sink: Sink) {
  const endpoint = (await api.call("POST", "/endpoints", { key, body: { name: "API orders", destination_url: `http://127.0.0.1:${sink.port}/in` } })).json as { id: string; slug: string };
  const ids: string[] = [];
  for (let i = 0; i < 3; i += 1) ids.push(await capture(services, endpoint.slug, JSON.stringify({ type: `order.${i}` }), { headers: DUPLICATED, subPath: "/sub", query: "x=1" }));
  await waitFor(async () => (await api.call("GET", `/events?status=delivered&endpoint_id=${endpoint.id}`, { key })).json.meta.total === 3, "deliveries");
  return { endpoint, ids };
}

describe("GET /api/v1/events", () => {
  test("lists newest first with filters and offset pagination meta", async ({ api, services, apiKey, sink }) => {
    const key = apiKey.key;
    const { endpoint, ids } = await orders(api, services, key, sink);
    const page = await api.call("GET", `/events?endpoint_id=${endpoint.id}&limit=2&offset=1`, { key });
    expect(page.json.meta).toEqual({ total: 3, total_capped: false, limit: 2, offset: 1, next_cursor: null });
    expect(page.json.data.map((e: { id: string }) => e.id)).toEqual([ids[1], ids[0]]);
    expect(page.json.data[0]).toMatchObject({ event_type: "order.1", status: "delivered" });
    const defaults = await api.call("GET", "/events", { key });
    expect(defaults.json.meta).toMatchObject({ limit: 20, offset: 0 });
    expect((await api.call("GET", "/events?status=unknown", { key })).status).toBe(400);
    expect((await api.call("GET", "/events?limit=101", { key })).status).toBe(400);
    expect((await api.call("GET", "/events?limit=0", { key })).status).toBe(400);
  });

  test("pages by an opaque cursor, caps the offset with a pointer to it, and filters by type, time and text", async ({ api, services, apiKey, sink }) => {
    const key = apiKey.key;
    const { endpoint, ids } = await orders(api, services, key, sink);
    const first = await api.call("GET", `/events?endpoint_id=${endpoint.id}&limit=2`, { key });
    expect(first.json.meta).toMatchObject({ total: 3, total_capped: false, limit: 2, offset: 0 });
    const cursor = first.json.meta.next_cursor as string;
    expect(cursor).not.toMatch(/-/);
    const second = await api.call("GET", `/events?endpoint_id=${endpoint.id}&limit=2&cursor=${cursor}`, { key });
    expect([...first.json.data, ...second.json.data].map((e: { id: string }) => e.id)).toEqual([...ids].reverse());
    expect(second.json.meta.next_cursor).toBeNull();

    const deep = await api.call("GET", "/events?offset=10001", { key });
    expect(deep.status).toBe(400);
    expect(deep.json.error.message).toMatch(/cursor/);
    expect((await api.call("GET", "/events?cursor=not-a-cursor", { key })).json.error.message).toBe("This cursor is not one this API gave. Pass meta.next_cursor back as it came.");
    expect((await api.call("GET", `/events?cursor=${cursor}&offset=1`, { key })).status).toBe(400);

    const typed = await api.call("GET", "/events?event_type=order.2", { key });
    expect(typed.json.data.map((e: { id: string }) => e.id)).toEqual([ids[2]]);
    expect(typed.json.meta).toMatchObject({ total: 1, total_capped: false });
    const future = new Date(Date.now() + 60_000).toISOString();
    expect((await api.call("GET", `/events?endpoint_id=${endpoint.id}&received_after=${future}`, { key })).json.data).toEqual([]);
    const before = await api.call("GET", `/events?endpoint_id=${endpoint.id}&received_before=${encodeURIComponent(future)}`, { key });
    expect(before.json.data).toHaveLength(3);
    expect((await api.call("GET", "/events?received_after=yesterday", { key })).json.error.message).toMatch(/ISO 8601/);
    const found = await api.call("GET", `/events?q=${encodeURIComponent('"ORDER.1"')}`, { key });
    expect(found.json.data.map((e: { id: string }) => e.id)).toEqual([ids[1]]);
    expect((await api.call("GET", `/events?q=${"x".repeat(201)}`, { key })).status).toBe(400);
  });
});

describe("GET /api/v1/events/{id}", () => {
  test("gets an event with headers in order, the payload by encoding and the response", async ({ api, services, apiKey, sink }) => {
    const key = apiKey.key;
    const { endpoint, ids } = await orders(api, services, key, sink);
    const json = await api.call("GET", `/events/${ids[0]}`, { key });
    expect(json.json).toMatchObject({
      id: ids[0],
      endpoint_id: endpoint.id,
      method: "POST",
      path: "/sub",
      query: "x=1",
      payload: { type: "order.0" },
      payload_encoding: "json",
      response: { status: 200, body: "thanks", body_encoding: "utf8" },
      replay_count: 0,
    });
    expect((json.json.headers as Array<[string, string]>).filter(([n]) => n === "X-Dup")).toEqual([["X-Dup", "a"], ["X-Dup", "b"]]);
    const text = await api.call("GET", `/events/${await capture(services, endpoint.slug, "plain words", { contentType: "text/plain" })}`, { key });
    expect(text.json).toMatchObject({ payload: "plain words", payload_encoding: "utf8" });
    const bytes = Buffer.from([0, 1, 2, 255]);
    const binary = await api.call("GET", `/events/${await capture(services, endpoint.slug, bytes, { contentType: "application/octet-stream" })}`, { key });
    expect(binary.json).toMatchObject({ payload: bytes.toString("base64"), payload_encoding: "base64" });
  });

  test("downloads an event's body, every byte, as an attachment", async ({ api, services, apiKey, stranger }) => {
    const key = apiKey.key;
    const endpoint = (await api.call("POST", "/endpoints", { key, body: { name: "bodies" } })).json as { slug: string };
    const bytes = Buffer.concat([Buffer.from('{"a":1}'), Buffer.from([0x00, 0xff, 0xfe])]);
    const id = await capture(services, endpoint.slug, bytes);
    const body = await api.call("GET", `/events/${id}/body`, { key });
    expect(body.status).toBe(200);
    expect(body.bytes).toEqual(bytes);
    expect(body.headers.get("content-type")).toBe("application/octet-stream");
    expect(body.headers.get("content-length")).toBe(String(bytes.length));
    expect(body.headers.get("content-disposition")).toMatch(/^attachment; filename="event-[0-9a-f-]+\.json"$/);
    expect((await api.call("GET", `/events/${id}/body`, { key: stranger.key })).status).toBe(404);
    expect((await api.call("GET", `/events/${MISSING_ID}/body`, { key })).status).toBe(404);
  });
});

describe("DELETE /api/v1/events/{id}", () => {
  test("deletes one event with its attempts and replays (204), keeps the counts true, and answers 404 to another user and after", async ({ api, services, apiKey, stranger, sink, database }) => {
    const key = apiKey.key;
    const { endpoint } = await orders(api, services, key, sink);
    const doomed = await capture(services, endpoint.slug, '{"delete":"me"}');
    await waitFor(async () => (await api.call("GET", `/events/${doomed}`, { key })).json.status !== "pending", "the event to be delivered");
    await api.call("POST", `/events/${doomed}/replay`, { key, body: { destination_url: `http://127.0.0.1:${sink.port}/before-delete` } });
    const before = (await api.call("GET", `/events?endpoint_id=${endpoint.id}`, { key })).json.meta.total as number;

    expect((await api.call("DELETE", `/events/${doomed}`, { key: stranger.key })).status).toBe(404);
    expect((await api.call("GET", `/events/${doomed}`, { key })).status).toBe(200);
    expect((await api.call("DELETE", `/events/${doomed}`, { key })).status).toBe(204);

    const gone = await api.call("GET", `/events/${doomed}`, { key });
    expect(gone.status).toBe(404);
    expect(gone.json.error.message).toMatch(/^There is no event with the id .+\. It may have been deleted already\.$/);
    expect((await api.call("DELETE", `/events/${doomed}`, { key })).status).toBe(404);
    expect(await database.query("select 1 from replay_attempts where event_id = $1 union all select 1 from delivery_attempts where event_id = $1", [doomed])).toEqual([]);
    expect((await api.call("GET", `/events?endpoint_id=${endpoint.id}`, { key })).json.meta.total).toBe(before - 1);
    expect(await eventCountMismatches(database)).toEqual([]);
  });
});

describe("tenancy", () => {
  test("keeps users apart: another user gets 404 on the user's event ids and never sees their rows", async ({ api, services, apiKey, stranger, sink }) => {
    const { endpoint, ids } = await orders(api, services, apiKey.key, sink);
    const asStranger = { key: stranger.key };
    expect((await api.call("GET", `/events/${ids[0]}`, asStranger)).status).toBe(404);
    expect((await api.call("POST", `/events/${ids[0]}/replay`, { ...asStranger, body: { destination_url: `http://127.0.0.1:${sink.port}/b` } })).status).toBe(404);
    expect((await api.call("GET", "/events", asStranger)).json).toMatchObject({ data: [], meta: { total: 0 } });
    expect((await api.call("GET", `/events?endpoint_id=${endpoint.id}`, asStranger)).json.meta.total).toBe(0);
    expect(sink.received.filter((r) => r.url === "/b")).toEqual([]);
  });
});

describe("GET /api/v1/events/export", () => {
  test("answers an unknown format with a 400 JSON error", async ({ api, apiKey }) => {
    const response = await api.call("GET", "/events/export?format=csv", { key: apiKey.key });
    expect(response.status).toBe(400);
    expect(response.json.error.code).toBe("validation_failed");
    expect(response.json.error.message).toMatch(/^The request query is not valid\. .*ndjson/);
  });

  test("exports NDJSON newest first, each event whole, as an attachment", async ({ api, services, apiKey, sink }) => {
    const key = apiKey.key;
    const { endpoint, ids } = await orders(api, services, key, sink);
    const response = await api.call("GET", `/events/export?format=ndjson&endpoint_id=${endpoint.id}`, { key });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="rehook-events.ndjson"');
    expect(response.text.endsWith("\n")).toBe(true);
    const lines = response.text.trim().split("\n").map((line) => JSON.parse(line) as { id: string; body_base64: string; status: string });
    expect(lines.map((line) => line.id)).toEqual([...ids].reverse());
    expect(lines.map((line) => Buffer.from(line.body_base64, "base64").toString())).toEqual([2, 1, 0].map((i) => JSON.stringify({ type: `order.${i}` })));
    expect(lines.every((line) => line.status === "delivered")).toBe(true);
  });

  test("exports HAR 1.2 with the capture URL, headers in order, and bodies that round-trip", async ({ api, services, apiKey }) => {
    const key = apiKey.key;
    const endpoint = (await api.call("POST", "/endpoints", { key, body: { name: "har" } })).json as { id: string; slug: string; webhook_url: string };
    const text = Buffer.from('{"hello":"wörld"}');
    const binary = Buffer.from([0xff, 0x00, 0xfe, 0x80, 0x01, 0x02]);
    await capture(services, endpoint.slug, text, { headers: DUPLICATED, subPath: "/stripe/v1", query: "a=1&b=two%20words" });
    await capture(services, endpoint.slug, binary, { contentType: "application/octet-stream" });

    // HAR is application/json: the harness checks it against the document's schema of it, HAR 1.2.
    const response = await api.call("GET", `/events/export?format=har&endpoint_id=${endpoint.id}`, { key });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-disposition")).toBe('attachment; filename="rehook-events.har"');
    const har = response.json as { log: { version: string; creator: { name: string }; entries: Array<Record<string, any>> } };
    expect(har.log.version).toBe("1.2");
    expect(har.log.creator.name).toBe("Rehook");
    expect(har.log.entries).toHaveLength(2);
    const [binaryEntry, textEntry] = har.log.entries as [Record<string, any>, Record<string, any>];
    expect(textEntry.request.method).toBe("POST");
    expect(textEntry.request.url).toBe(`${endpoint.webhook_url}/stripe/v1?a=1&b=two%20words`);
    expect(textEntry.request.queryString).toEqual([
      { name: "a", value: "1" },
      { name: "b", value: "two words" },
    ]);
    expect(textEntry.request.headers.filter((h: { name: string }) => h.name === "X-Dup")).toEqual([
      { name: "X-Dup", value: "a" },
      { name: "X-Dup", value: "b" },
    ]);
    expect(textEntry.request.postData).toEqual({ mimeType: "application/json", text: text.toString("utf8") });
    expect(binaryEntry.request.postData._encoding).toBe("base64");
    expect(Buffer.from(binaryEntry.request.postData.text, "base64")).toEqual(binary);
    expect(binaryEntry.request.bodySize).toBe(binary.length);
    // Not forwarded (no destination): no answer.
    expect(textEntry.response.status).toBe(0);
  });

  test("exports only the key's user's events", async ({ api, services, apiKey, stranger }) => {
    const endpoint = (await api.call("POST", "/endpoints", { key: apiKey.key, body: { name: "mine" } })).json as { id: string; slug: string };
    await capture(services, endpoint.slug, "{}");
    expect((await api.call("GET", `/events/export?endpoint_id=${endpoint.id}`, { key: apiKey.key })).text.trim().split("\n")).toHaveLength(1);
    const response = await api.call("GET", `/events/export?endpoint_id=${endpoint.id}`, { key: stranger.key });
    expect(response.status).toBe(200);
    expect(response.text).toBe("");
    expect((await api.call("GET", "/events/export", { key: stranger.key })).text).toBe("");
  });
});

test("exercised every answer its routes declare, each checked against the document", ({ api }) => {
  expect(unexercised(api, "events")).toEqual([]);
});
