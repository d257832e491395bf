import { describe, expect } from "vitest";
import { startSink } from "@rehook/vitest-config/sink";
import { capture, MISSING_ID, startApi, test, unexercised } from "./api-server.js";

// /api/v1/endpoints: create, list, read, change, delete, and the live event stream.

describe("/api/v1/endpoints", () => {
  test("creates (201), lists with meta, updates and deletes (204) endpoints", async ({ api, adminKey }) => {
    const key = adminKey;
    const sink = await startSink((_req, res) => res.end("thanks"));
    try {
      const destination = `http://127.0.0.1:${sink.port}/in`;
      const created = await api.call("POST", "/endpoints", { key, body: { name: "API orders", destination_url: destination } });
      expect(created.status).toBe(201);
      expect(created.json).toMatchObject({ name: "API orders", destination_url: destination, health: { state: "capturing", success_rate: null }, keep_proxy_headers: false });
      expect(created.json.webhook_url).toBe(`http://rehook.test/api/webhook/${created.json.slug}`);
      const second = await api.call("POST", "/endpoints", { key, body: { name: "to delete" } });
      const listed = await api.call("GET", "/endpoints?limit=1&offset=1", { key });
      expect(listed.json).toMatchObject({ data: [{ id: second.json.id }], meta: { total: 2, limit: 1, offset: 1 } });
      const patched = await api.call("PATCH", `/endpoints/${second.json.id}`, { key, body: { name: "renamed", destination_url: null, keep_proxy_headers: true } });
      expect(patched).toMatchObject({ status: 200, json: { name: "renamed", destination_url: null, keep_proxy_headers: true, retention_days: null, kept_for_days: 30 } });
      const kept = await api.call("PATCH", `/endpoints/${second.json.id}`, { key, body: { retention_days: 7 } });
      expect(kept.json).toMatchObject({ retention_days: 7, kept_for_days: 7 });
      // An empty patch changes nothing and answers the endpoint.
      expect((await api.call("PATCH", `/endpoints/${second.json.id}`, { key, body: {} })).json).toMatchObject({ name: "renamed", retention_days: 7 });
      expect(await api.call("GET", `/endpoints/${second.json.id}`, { key })).toMatchObject({ status: 200, json: { id: second.json.id, name: "renamed", retention_days: 7, health: { state: expect.any(String) } } });
      expect((await api.call("PATCH", `/endpoints/${second.json.id}`, { key, body: { retention_days: 0 } })).json).toMatchObject({ retention_days: 0, kept_for_days: 0 });
      const tooLong = await api.call("PATCH", `/endpoints/${second.json.id}`, { key, body: { retention_days: 5000 } });
      expect(tooLong.status).toBe(400);
      expect((await api.call("DELETE", `/endpoints/${second.json.id}`, { key })).status).toBe(204);
      expect((await api.call("DELETE", `/endpoints/${second.json.id}`, { key })).status).toBe(404);
      expect((await api.call("GET", `/endpoints/${second.json.id}`, { key })).status).toBe(404);
      expect((await api.call("GET", "/endpoints", { key })).json.meta).toEqual({ total: 1, limit: 20, offset: 0 });
    } finally {
      await sink.close();
    }
  });

  test("refuses bad input with 400 and the zod issues, internal destinations with the reason", async ({ api, apiKey }) => {
    const key = apiKey.key;
    const missing = await api.call("POST", "/endpoints", { key, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.json.error.code).toBe("validation_failed");
    expect(Array.isArray(missing.json.error.details)).toBe(true);
    const extra = await api.call("POST", "/endpoints", { key, body: { name: "x", colour: "red" } });
    expect(extra.status).toBe(400);
    const internal = await api.call("POST", "/endpoints", { key, body: { name: "x", destination_url: "http://169.254.169.254/" } });
    expect(internal.status).toBe(400);
    expect(internal.json.error.message).toMatch(/blocked/);
    for (const query of ["limit=0", "limit=101", "offset=-1"]) expect((await api.call("GET", `/endpoints?${query}`, { key })).status, query).toBe(400);
    expect((await api.call("GET", "/endpoints", { key })).json.meta.total).toBe(0);
  });

  test("creates and patches endpoints with a retry policy and a breaker threshold, echoed on reads, and refuses ones out of bounds", async ({ api, apiKey }) => {
    const key = apiKey.key;
    const policy = { max_attempts: 2, initial_delay_ms: 100, max_delay_ms: 100 };
    const created = await api.call("POST", "/endpoints", { key, body: { name: "API flaky", destination_url: "http://127.0.0.1:9/in", retry_policy: policy, pause_after_failures: 100 } });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ retry_policy: policy, pause_after_failures: 100, forwarding_paused: false, paused_reason: null, paused_at: null });
    expect((await api.call("GET", "/endpoints?limit=100", { key })).json.data.find((e: { id: string }) => e.id === created.json.id)).toMatchObject({ retry_policy: policy });
    // The retry policy and the breaker are the first destination's (destination_url): kept with it.
    const defaults = await api.call("POST", "/endpoints", { key, body: { name: "API defaults", destination_url: "http://127.0.0.1:9/defaults" } });
    expect(defaults.json).toMatchObject({ retry_policy: null, pause_after_failures: null, forwarding_paused: false });
    const set = await api.call("PATCH", `/endpoints/${defaults.json.id}`, { key, body: { retry_policy: { max_attempts: 5, initial_delay_ms: 240000, max_delay_ms: 1920000 }, pause_after_failures: 3 } });
    expect(set.json).toMatchObject({ retry_policy: { max_attempts: 5 }, pause_after_failures: 3 });
    expect((await api.call("PATCH", `/endpoints/${defaults.json.id}`, { key, body: { retry_policy: null, pause_after_failures: null } })).json).toMatchObject({ retry_policy: null, pause_after_failures: null });
    for (const bad of [
      { retry_policy: { ...policy, max_attempts: 21 } },
      { retry_policy: { ...policy, max_attempts: 0 } },
      { retry_policy: { ...policy, initial_delay_ms: 99 } },
      { retry_policy: { ...policy, initial_delay_ms: 5000, max_delay_ms: 1000 } },
      { retry_policy: { max_attempts: 3 } },
      { pause_after_failures: 0 },
    ]) {
      const refused = await api.call("PATCH", `/endpoints/${defaults.json.id}`, { key, body: bad });
      expect(refused.status, JSON.stringify(bad)).toBe(400);
      expect(refused.json.error.code).toBe("validation_failed");
    }
    const inverted = await api.call("PATCH", `/endpoints/${defaults.json.id}`, { key, body: { retry_policy: { ...policy, initial_delay_ms: 5000, max_delay_ms: 1000 } } });
    expect(inverted.json.error.message).toMatch(/max_delay_ms/);
  });

  test("lists each endpoint with its event count and its newest event's time, kept true by a delete", async ({ api, apiKey, services }) => {
    const key = apiKey.key;
    const busy = (await api.call("POST", "/endpoints", { key, body: { name: "Busy" } })).json as { id: string; slug: string };
    const quiet = (await api.call("POST", "/endpoints", { key, body: { name: "Counted" } })).json as { id: string; slug: string };
    const listed = async (id: string) => (await api.call("GET", "/endpoints?limit=100", { key })).json.data.find((e: { id: string }) => e.id === id) as { event_count: number; last_event_at: string | null };
    expect(await listed(quiet.id)).toMatchObject({ event_count: 0, last_event_at: null });

    await capture(services, busy.slug, "{}");
    const ids: string[] = [];
    for (const n of [1, 2, 3]) ids.push(await capture(services, quiet.slug, `{"n":${n}}`));
    const receivedAt = async (id: string) => (await api.call("GET", `/events/${id}`, { key })).json.received_at as string;
    expect(await listed(quiet.id)).toEqual(expect.objectContaining({ event_count: 3, last_event_at: await receivedAt(ids[2]!) }));

    // The newest goes: the count drops by one and the time is the one before it.
    expect((await api.call("DELETE", `/events/${ids[2]}`, { key })).status).toBe(204);
    expect(await listed(quiet.id)).toEqual(expect.objectContaining({ event_count: 2, last_event_at: await receivedAt(ids[1]!) }));
    // The other endpoint's numbers are untouched.
    expect((await listed(busy.id)).event_count).toBe((await api.call("GET", `/events?endpoint_id=${busy.id}`, { key })).json.meta.total);
    expect((await listed(busy.id)).event_count).toBe(1);
  });

  test("keeps users apart: another user's endpoint answers 404 to every verb and is left alone", async ({ api, apiKey, stranger }) => {
    const mine = (await api.call("POST", "/endpoints", { key: apiKey.key, body: { name: "mine" } })).json as { id: string };
    const asStranger = { key: stranger.key };
    const refused = await api.call("GET", `/endpoints/${mine.id}`, asStranger);
    expect(refused.status).toBe(404);
    expect(refused.json.error.code).toBe("not_found");
    expect((await api.call("PATCH", `/endpoints/${mine.id}`, { ...asStranger, body: { name: "mine now" } })).status).toBe(404);
    // An empty patch reads the endpoint: still not the stranger's to read.
    expect((await api.call("PATCH", `/endpoints/${mine.id}`, { ...asStranger, body: {} })).status).toBe(404);
    expect((await api.call("DELETE", `/endpoints/${mine.id}`, asStranger)).status).toBe(404);
    expect((await api.call("GET", "/endpoints", asStranger)).json).toMatchObject({ data: [], meta: { total: 0 } });
    expect((await api.call("GET", `/endpoints/${mine.id}`, { key: apiKey.key })).json).toMatchObject({ id: mine.id, name: "mine" });
    expect((await api.call("GET", `/endpoints/${MISSING_ID}`, { key: apiKey.key })).status).toBe(404);
  });
});

describe("GET /api/v1/endpoints/{id}/stream", () => {
  test("sends each new event of the endpoint, and resumes after Last-Event-ID or ?after=", async ({ api, apiKey, services }) => {
    const key = apiKey.key;
    const endpoint = (await api.call("POST", "/endpoints", { key, body: { name: "streamed" } })).json as { id: string; slug: string };
    const other = (await api.call("POST", "/endpoints", { key, body: { name: "not streamed" } })).json as { id: string; slug: string };
    const live = await api.stream(`/endpoints/${endpoint.id}/stream`, key);
    let first: string;
    try {
      // The stream is open once its head arrived; captures from now on are sent live.
      await capture(services, other.slug, "{}");
      first = await capture(services, endpoint.slug, Buffer.from([0x7b, 0x7d, 0x00, 0xff]), { headers: [["X-One", "1"], ["Content-Type", "application/json"]], subPath: "/hook", query: "a=1" });
      const message = await live.next();
      expect(message).toMatchObject({ id: first, event: "webhook" });
      expect(message.data).toMatchObject({ id: first, endpoint_id: endpoint.id, method: "POST", path: "/hook", query: "a=1", headers: [["X-One", "1"], ["Content-Type", "application/json"]] });
      expect(Buffer.from(message.data.body_base64 as string, "base64")).toEqual(Buffer.from([0x7b, 0x7d, 0x00, 0xff]));
    } finally {
      live.close();
    }
    const second = await capture(services, endpoint.slug, '{"n":2}');
    const resumes: Array<{ path: string; headers: Record<string, string> }> = [
      { path: "", headers: { "last-event-id": first } },
      { path: `?after=${first}`, headers: {} },
    ];
    for (const resume of resumes) {
      const resumed = await api.stream(`/endpoints/${endpoint.id}/stream${resume.path}`, key, resume.headers);
      try {
        // Resuming sends what the client missed, never the named event again.
        const message = await resumed.next();
        expect(message.id).toBe(second);
        expect(Buffer.from(message.data.body_base64 as string, "base64").toString()).toBe('{"n":2}');
      } finally {
        resumed.close();
      }
    }
  });

  test("refuses a malformed resume id (400), and another user's or a missing endpoint (404) before opening", async ({ api, apiKey, stranger }) => {
    const endpoint = (await api.call("POST", "/endpoints", { key: apiKey.key, body: { name: "private stream" } })).json as { id: string };
    const bad = await api.call("GET", `/endpoints/${endpoint.id}/stream?after=yesterday`, { key: apiKey.key });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe("validation_failed");
    const badHeader = await api.call("GET", `/endpoints/${endpoint.id}/stream`, { key: apiKey.key, headers: { "last-event-id": "nope" } });
    expect(badHeader.status).toBe(400);
    expect(badHeader.json.error.message).toMatch(/^The request Last-Event-ID is not valid\./);
    expect((await api.call("GET", `/endpoints/${endpoint.id}/stream`, { key: stranger.key })).status).toBe(404);
    expect((await api.call("GET", `/endpoints/${MISSING_ID}/stream`, { key: apiKey.key })).status).toBe(404);
  });
});

test("shutdown ends an open stream and answers a new one 503 unavailable", async ({ services, api, apiKey }) => {
  const stopping = await startApi(services, { record: api.exercised });
  try {
    const endpoint = (await api.call("POST", "/endpoints", { key: apiKey.key, body: { name: "stopping" } })).json as { id: string };
    const open = await stopping.stream(`/endpoints/${endpoint.id}/stream`, apiKey.key);
    const ended = new Promise<void>((resolve) => open.response.once("end", resolve).resume());
    stopping.closeStreams();
    await ended;
    const refused = await stopping.call("GET", `/endpoints/${endpoint.id}/stream`, { key: apiKey.key });
    expect(refused.status).toBe(503);
    expect(refused.json.error.code).toBe("unavailable");
  } finally {
    await stopping.close();
  }
});

test("exercised every answer its routes declare, each checked against the document", ({ api }) => {
  expect(unexercised(api, "endpoints")).toEqual([]);
});
