import { describe, expect } from "vitest";
import type { Services } from "@rehook/services";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { capture, MISSING_ID, test as base, unexercised, type ApiServer } from "./api-server.js";

// Replays (to a URL, or recorded from the caller's machine), retries and resuming an endpoint.

const test = base.extend<{ sinks: { ok: Sink; down: Sink } }>({
  /** A destination that answers 200 "thanks", and one that answers 500 "down". */
  sinks: [
    // vitest reads a fixture's dependencies from its first parameter's destructuring: none here.
    async ({}, use) => {
      const ok = await startSink((_req, res) => res.end("thanks"));
      const down = await startSink((_req, res) => {
        res.statusCode = 500;
        res.end("down");
      });
      try {
        await use({ ok, down });
      } finally {
        await ok.close();
        await down.close();
      }
    },
    { scope: "file" },
  ],
});

const POLICY = { max_attempts: 2, initial_delay_ms: 100, max_delay_ms: 100 };

async function eventOf(api: ApiServer, key: string, id: string) {
  return (await api.call("GET", `/events/${id}`, { key })).json;
}

/** An event of an endpoint forwarding to `sink`, once its delivery has an outcome. */
async function settledEvent(api: ApiServer, services: Services, key: string, sink: Sink, settings: Record<string, unknown> = {}) {
  const endpoint = (await api.call("POST", "/endpoints", { key, body: { name: "API target", destination_url: `http://127.0.0.1:${sink.port}/in`, ...settings } })).json as { id: string; slug: string };
  const id = await capture(services, endpoint.slug, '{"type":"order.paid"}');
  await waitFor(async () => ["delivered", "failed"].includes((await eventOf(api, key, id)).status), "the delivery's outcome");
  return { endpoint, id };
}

describe("POST /api/v1/events/{id}/replay", () => {
  test("replays an event to a URL and counts it", async ({ api, services, apiKey, sinks }) => {
    const key = apiKey.key;
    const { id } = await settledEvent(api, services, key, sinks.ok);
    const replayed = await api.call("POST", `/events/${id}/replay`, { key, body: { destination_url: `http://127.0.0.1:${sinks.ok.port}/again` } });
    expect(replayed.status).toBe(200);
    expect(Object.keys(replayed.json).sort()).toEqual(["destination_id", "destination_url", "id", "latency_ms", "modified", "replayed_at", "response_status", "status"]);
    expect(replayed.json).toMatchObject({ status: "delivered", response_status: 200, destination_url: `http://127.0.0.1:${sinks.ok.port}/again`, modified: false });
    expect(sinks.ok.received.at(-1)!.url).toBe("/again");
    expect(sinks.ok.received.at(-1)!.body.toString()).toBe('{"type":"order.paid"}');
    expect((await eventOf(api, key, id)).replay_count).toBe(1);
    expect((await api.call("POST", `/events/${id}/replay`, { key, body: { destination_url: "not a url" } })).status).toBe(400);
    const refused = await api.call("POST", `/events/${id}/replay`, { key, body: { destination_url: "http://169.254.169.254/x" } });
    expect(refused.status).toBe(422);
    expect(refused.json.error).toMatchObject({ code: "unprocessable", message: expect.stringMatching(/^replay target refused: blocked/) });
    expect((await api.call("POST", `/events/${id}/replay`, { key, body: "{broken" })).status).toBe(400);
    expect((await api.call("POST", `/events/${id}/replay`, { key, body: "x", headers: { "content-type": "text/plain" } })).status).toBe(415);
    expect((await api.call("POST", `/events/${id}/replay`, { key, body: { destination_url: "x".repeat(2 * 1024 * 1024) } })).status).toBe(413);
    expect((await eventOf(api, key, id)).replay_count).toBe(1);
  });

  test("sends an edited request when given overrides, marked modified", async ({ api, services, apiKey, sinks }) => {
    const key = apiKey.key;
    const { id } = await settledEvent(api, services, key, sinks.ok);
    const edited = await api.call("POST", `/events/${id}/replay`, {
      key,
      body: { destination_url: `http://127.0.0.1:${sinks.ok.port}/edited`, overrides: { method: "PUT", body: "changed" } },
    });
    expect(edited.json).toMatchObject({ status: "delivered", modified: true });
    const got = sinks.ok.received.at(-1)!;
    expect([got.method, got.url, got.body.toString()]).toEqual(["PUT", "/edited", "changed"]);
  });

  test("appends an edited path and query to destination_url, and refuses a path that is not one (400)", async ({ api, services, apiKey, sinks }) => {
    const key = apiKey.key;
    const { id } = await settledEvent(api, services, key, sinks.ok);
    const edited = await api.call("POST", `/events/${id}/replay`, {
      key,
      body: { destination_url: `http://127.0.0.1:${sinks.ok.port}/edited?k=1`, overrides: { path: "/orders/42", query: "?retry=yes" } },
    });
    expect(edited.json).toMatchObject({ status: "delivered", modified: true, destination_url: `http://127.0.0.1:${sinks.ok.port}/edited/orders/42?k=1&retry=yes` });
    expect(sinks.ok.received.at(-1)!.url).toBe("/edited/orders/42?k=1&retry=yes");
    for (const path of ["orders", "/a\r\nX-Evil: 1", "/../admin"]) {
      const refused = await api.call("POST", `/events/${id}/replay`, { key, body: { destination_url: `http://127.0.0.1:${sinks.ok.port}/edited`, overrides: { path } } });
      expect(refused.status, JSON.stringify(path)).toBe(400);
      expect(refused.json.error.code).toBe("validation_failed");
    }
  });

  test("answers 404 for a missing event", async ({ api, apiKey, sinks }) => {
    const missing = await api.call("POST", `/events/${MISSING_ID}/replay`, { key: apiKey.key, body: { destination_url: `http://127.0.0.1:${sinks.ok.port}/x` } });
    expect(missing.status).toBe(404);
    expect(missing.json.error.code).toBe("not_found");
  });
});

describe("replay targets and resolution on an endpoint with two destinations", () => {
  /** An endpoint delivering to `ok` and failing at `down`, and an event delivered to the first and failed at the second. */
  async function halfFailed(api: ApiServer, services: Services, key: string, sinks: { ok: Sink; down: Sink }) {
    const endpoint = (await api.call("POST", "/endpoints", { key, body: { name: "two ways", destination_url: `http://127.0.0.1:${sinks.ok.port}/two` } })).json as { id: string; slug: string };
    const down = (await api.call("POST", `/endpoints/${endpoint.id}/destinations`, { key, body: { name: "Down", url: `http://127.0.0.1:${sinks.down.port}/two` } })).json as { id: string };
    const destinations = (await api.call("GET", `/endpoints/${endpoint.id}/destinations`, { key })).json.data as Array<{ id: string }>;
    const id = await capture(services, endpoint.slug, '{"type":"order.paid"}');
    await waitFor(async () => {
      const event = await eventOf(api, key, id);
      return event.status === "failed" && event.deliveries.every((delivery: { status: string }) => delivery.status !== "pending");
    }, "the event to fail at Down");
    return { endpoint, id, up: destinations[0]!.id, down: down.id };
  }

  test("original asks which destination (400); destination_id goes there; failed and matched answer every attempt", async ({ api, services, apiKey, sinks }) => {
    const key = apiKey.key;
    const { id, up, down } = await halfFailed(api, services, key, sinks);
    const ambiguous = await api.call("POST", `/events/${id}/replay`, { key, body: { target: "original" } });
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.json.error).toMatchObject({ code: "validation_failed", message: expect.stringMatching(/went to 2 destinations .*: choose one with destination_id/) });
    expect((await api.call("POST", `/events/${id}/replay`, { key, body: {} })).json.error.message).toMatch(/Say where to send the event/);

    const chosen = await api.call("POST", `/events/${id}/replay`, { key, body: { destination_id: up } });
    expect(chosen).toMatchObject({ status: 200, json: { status: "delivered", destination_id: up, destination_url: `http://127.0.0.1:${sinks.ok.port}/two` } });

    const failed = await api.call("POST", `/events/${id}/replay`, { key, body: { target: "failed" } });
    expect(failed.status).toBe(200);
    expect(failed.json).toMatchObject({ attempts: [{ destination_id: down, status: "failed", response_status: 500 }], event_resolved: false });
    const matched = await api.call("POST", `/events/${id}/replay`, { key, body: { target: "matched" } });
    expect(matched.json.attempts.map((attempt: { destination_id: string; status: string }) => [attempt.destination_id, attempt.status])).toEqual([
      [up, "delivered"],
      [down, "failed"],
    ]);
    const mixed = await api.call("POST", `/events/${id}/replay`, { key, body: { target: "matched", destination_id: up } });
    expect(mixed.status).toBe(400);
    const foreign = await api.call("POST", `/events/${id}/replay`, { key, body: { destination_id: MISSING_ID } });
    expect(foreign.status).toBe(422);
    // A replay to a URL that delivers resolves nothing.
    await api.call("POST", `/events/${id}/replay`, { key, body: { destination_url: `http://127.0.0.1:${sinks.ok.port}/scratch` } });
    expect(await eventOf(api, key, id)).toMatchObject({ status: "failed", resolved: false, resolved_by_replay: false });
  });

  test("a member marks the failed delivery resolved with a note; the event reads resolved; refusals are 400, 404 and 409", async ({ api, services, apiKey, stranger, sinks }) => {
    const key = apiKey.key;
    const { id, up, down } = await halfFailed(api, services, key, sinks);
    const path = (destination: string) => `/events/${id}/deliveries/${destination}/resolve`;
    expect((await api.call("POST", path(down), { key, body: { note: "" } })).status).toBe(400);
    expect((await api.call("POST", path(down), { key, body: {} })).status).toBe(400);
    expect((await api.call("POST", path(MISSING_ID), { key, body: { note: "n" } })).status).toBe(404);
    expect((await api.call("POST", path(down), { key: stranger.key, body: { note: "n" } })).status).toBe(404);
    const notFailed = await api.call("POST", path(up), { key, body: { note: "n" } });
    expect(notFailed.status).toBe(409);
    expect(notFailed.json.error.message).toMatch(/is delivered, not failed/);

    const resolved = await api.call("POST", path(down), { key, body: { note: "Refunded by hand" } });
    expect(resolved).toMatchObject({ status: 200, json: { event_id: id, destination_id: down, note: "Refunded by hand", event_resolved: true } });
    const event = await eventOf(api, key, id);
    expect(event).toMatchObject({ status: "failed", resolved: true, resolved_by_replay: true });
    expect(event.deliveries.find((delivery: { destination_id: string }) => delivery.destination_id === down).resolution).toMatchObject({
      by: "member",
      replay_id: null,
      user_id: resolved.json.user_id,
      note: "Refunded by hand",
    });
    expect(event.deliveries.find((delivery: { destination_id: string }) => delivery.destination_id === up).resolution).toBeNull();
    expect((await api.call("POST", path(down), { key, body: { note: "again" } })).status).toBe(409);
    const listed = await api.call("GET", `/events?endpoint_id=${event.endpoint_id}`, { key });
    expect(listed.json.data).toMatchObject([{ id, resolved: true }]);
  });
});

describe("POST /api/v1/events/{id}/local-replays", () => {
  test("records a local replay whose error text carries NUL and a lone surrogate, cleaned instead of a 500", async ({ api, services, apiKey, sinks, database }) => {
    const key = apiKey.key;
    const { id } = await settledEvent(api, services, key, sinks.ok);
    const recorded = await api.call("POST", `/events/${id}/local-replays`, { key, body: { status: null, latency_ms: 3, error: "refused\u0000 \ud800 here" } });
    expect(recorded.status).toBe(201);
    expect(recorded.json).toMatchObject({ status: "failed", response_status: null, latency_ms: 3, modified: false });
    const [row] = await database.query<{ error: string; environment: string }>("select error, environment from replay_attempts where id = $1", [recorded.json.id]);
    expect(row).toEqual({ error: "refused\ufffd \ufffd here", environment: "local" });
    expect((await eventOf(api, key, id)).replay_count).toBe(1);
  });

  test("stores a record sent again with its attempt_id once, and refuses an attempt_id another user's record holds (409)", async ({ api, services, apiKey, sinks, stranger, database }) => {
    const key = apiKey.key;
    const { id } = await settledEvent(api, services, key, sinks.ok);
    const attemptId = "0192f0e0-1111-7000-8000-000000000001";
    const body = { attempt_id: attemptId, status: 200, latency_ms: 4 };
    // The first answer lost to a restart: rehook listen sends the same record again.
    const first = await api.call("POST", `/events/${id}/local-replays`, { key, body });
    const again = await api.call("POST", `/events/${id}/local-replays`, { key, body });
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(again.json.id).toBe(attemptId);
    expect(await database.query("select id from replay_attempts where event_id = $1", [id])).toEqual([{ id: attemptId }]);

    const theirs = await settledEvent(api, services, stranger.key, sinks.ok);
    const taken = await api.call("POST", `/events/${theirs.id}/local-replays`, { key: stranger.key, body });
    expect(taken.status).toBe(409);
    expect(taken.json.error.code).toBe("conflict");
    const malformed = await api.call("POST", `/events/${id}/local-replays`, { key, body: { ...body, attempt_id: "7" } });
    expect(malformed.status).toBe(400);
    expect(await database.query("select 1 from replay_attempts where event_id = $1", [theirs.id])).toEqual([]);
  });

  test("records how it got there (via: listen unless the caller says) and the URL it went to (local_url), never a destination's", async ({ api, services, apiKey, sinks, database }) => {
    const key = apiKey.key;
    const { id } = await settledEvent(api, services, key, sinks.ok);
    const listened = await api.call("POST", `/events/${id}/local-replays`, { key, body: { status: 200, latency_ms: 4, local_url: "http://127.0.0.1:4000/dev/orders?x=1" } });
    expect(listened.status).toBe(201);
    expect(listened.json).toMatchObject({ status: "delivered", destination_url: "http://127.0.0.1:4000/dev/orders?x=1" });
    const browser = await api.call("POST", `/events/${id}/local-replays`, { key, body: { status: 200, latency_ms: 4, via: "browser", local_url: "http://localhost:5173/hooks" } });
    expect(browser.status).toBe(201);
    const rows = await database.query<{ id: string; local_via: string; destination_id: string | null }>("select id, local_via, destination_id from replay_attempts where event_id = $1", [id]);
    expect(Object.fromEntries(rows.map((row) => [row.id, [row.local_via, row.destination_id]]))).toEqual({
      [listened.json.id]: ["listen", null],
      [browser.json.id]: ["browser", null],
    });
    for (const body of [{ via: "fax" }, { local_url: "file:///etc/passwd" }, { local_url: "http://u:p@localhost/" }]) {
      const refused = await api.call("POST", `/events/${id}/local-replays`, { key, body: { status: 200, latency_ms: 4, ...body } });
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.json.error.code).toBe("validation_failed");
    }
  });

  test("refuses a result that is not one (400) and a missing event (404)", async ({ api, services, apiKey, sinks }) => {
    const key = apiKey.key;
    const { id } = await settledEvent(api, services, key, sinks.ok);
    const bad = await api.call("POST", `/events/${id}/local-replays`, { key, body: { status: 200, latency_ms: -1 } });
    expect(bad.status).toBe(400);
    expect(bad.json.error.code).toBe("validation_failed");
    expect((await api.call("POST", `/events/${MISSING_ID}/local-replays`, { key, body: { status: 200, latency_ms: 1 } })).status).toBe(404);
    expect((await eventOf(api, key, id)).replay_count).toBe(0);
  });
});

describe("retries, attempts and resuming", () => {
  test("lists every attempt of an event; next_attempt_at is null once its outcome is final", async ({ api, services, apiKey, sinks }) => {
    const key = apiKey.key;
    const { id: failed } = await settledEvent(api, services, key, sinks.down, { retry_policy: POLICY, pause_after_failures: 100 });
    await waitFor(async () => (await eventOf(api, key, failed)).status === "failed", "both attempts to fail");
    const event = await eventOf(api, key, failed);
    expect(event.next_attempt_at).toBeNull();
    expect(event.attempts).toHaveLength(2);
    expect(event.attempts.map((a: { attempt: number; outcome: string; response_status: number }) => [a.attempt, a.outcome, a.response_status])).toEqual([
      [1, "failed", 500],
      [2, "failed", 500],
    ]);
    // A delivered event has its one attempt.
    const { id: delivered } = await settledEvent(api, services, key, sinks.ok);
    expect((await eventOf(api, key, delivered)).attempts).toMatchObject([{ attempt: 1, outcome: "delivered", response_status: 200, error: null }]);
  });

  test("retries an event now (202), and a whole endpoint's failed events; refuses what does not apply", async ({ api, services, apiKey, sinks }) => {
    const key = apiKey.key;
    const { endpoint: flaky, id: failed } = await settledEvent(api, services, key, sinks.down, { retry_policy: POLICY, pause_after_failures: 100 });
    await waitFor(async () => (await eventOf(api, key, failed)).status === "failed", "both attempts to fail");
    const retried = await api.call("POST", `/events/${failed}/retry`, { key });
    expect(retried.status).toBe(202);
    expect(retried.json).toMatchObject({ id: failed, status: "pending", forwarding_paused: false });
    await waitFor(async () => (await eventOf(api, key, failed)).attempts.length === 3, "the new attempt");
    await waitFor(async () => (await eventOf(api, key, failed)).status === "failed", "the event to fail again");
    const again = await api.call("POST", `/endpoints/${flaky.id}/retry-failed`, { key });
    expect(again).toMatchObject({ status: 202, json: { count: 1, forwarding_paused: false } });
    await waitFor(async () => (await eventOf(api, key, failed)).attempts.length === 4, "the bulk attempt");

    const { id: deliveredId } = await settledEvent(api, services, key, sinks.ok);
    const delivered = await api.call("POST", `/events/${deliveredId}/retry`, { key });
    expect(delivered.status).toBe(409);
    expect(delivered.json.error).toMatchObject({ code: "conflict" });
    expect(delivered.json.error.message).toMatch(/delivered/);
    const captureOnly = (await api.call("POST", "/endpoints", { key, body: { name: "API capture only" } })).json as { slug: string };
    const captured = await capture(services, captureOnly.slug, "{}");
    const noDestination = await api.call("POST", `/events/${captured}/retry`, { key });
    expect(noDestination.status).toBe(422);
    expect(noDestination.json.error.code).toBe("unprocessable");
    expect((await api.call("POST", `/events/${MISSING_ID}/retry`, { key })).status).toBe(404);
  });

  test("resumes an endpoint (200 with the endpoint), and keeps other users out of all of it", async ({ api, services, apiKey, stranger, sinks }) => {
    const key = apiKey.key;
    const { endpoint: flaky, id: failed } = await settledEvent(api, services, key, sinks.down, { retry_policy: POLICY, pause_after_failures: 100 });
    const resumed = await api.call("POST", `/endpoints/${flaky.id}/resume`, { key });
    expect(resumed).toMatchObject({ status: 200, json: { id: flaky.id, forwarding_paused: false, paused_reason: null } });
    const asStranger = { key: stranger.key };
    expect((await api.call("POST", `/events/${failed}/retry`, asStranger)).status).toBe(404);
    expect((await api.call("POST", `/endpoints/${flaky.id}/retry-failed`, asStranger)).status).toBe(404);
    expect((await api.call("POST", `/endpoints/${flaky.id}/resume`, asStranger)).status).toBe(404);
    expect((await api.call("GET", `/events/${failed}`, asStranger)).status).toBe(404);
    expect((await api.call("POST", `/endpoints/${MISSING_ID}/resume`, { key })).status).toBe(404);
    expect((await api.call("POST", `/endpoints/${MISSING_ID}/retry-failed`, { key })).status).toBe(404);
  });
});

test("exercised every answer its routes declare, each checked against the document", ({ api }) => {
  expect(unexercised(api, "replays")).toEqual([]);
});
