import { randomUUID } from "node:crypto";
import { EventSource } from "eventsource";
import { describe, expect } from "vitest";
import { uuidv7Floor, uuidv7Timestamp } from "@rehook/core";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { capture, test } from "./api-server.js";

// Issue 41 (4.1): a stream resumed with Last-Event-ID used to start 5 s before that id and
// re-send what the client had (#1 #2 #1 #2 #3 #4), the named event included. It now sends each
// event once: what committed after the named one, in commit order, whatever its id.

interface Received {
  id: string;
  lastEventId: string;
}

/** A standard EventSource client (the `eventsource` package) on the endpoint's stream, with the API key (and a Last-Event-ID, as its own reconnection sends it). */
function open(url: string, key: string, received: Received[], lastEventId?: string): EventSource {
  const source = new EventSource(url, {
    fetch: (input, init) =>
      fetch(input, { ...init, headers: { ...init?.headers, authorization: `Bearer ${key}`, ...(lastEventId ? { "last-event-id": lastEventId } : {}) } }),
  });
  source.addEventListener("webhook", (message) => received.push({ id: (JSON.parse(message.data) as { id: string }).id, lastEventId: message.lastEventId }));
  return source;
}

describe("resuming GET /api/v1/endpoints/{id}/stream", () => {
  test("sends each event exactly once: not the named one nor those before it, but one with an older id that committed after it", async ({ api, apiKey, services, database }) => {
    const endpoint = (await api.call("POST", "/endpoints", { key: apiKey.key, body: { name: "resumed" } })).json as { id: string; slug: string };
    const url = `${api.url}/api/v1/endpoints/${endpoint.id}/stream`;
    const first: Received[] = [];
    const live = open(url, apiKey.key, first);
    await waitFor(() => live.readyState === live.OPEN, "the stream to open");
    const one = await capture(services, endpoint.slug, '{"n":1}');
    const two = await capture(services, endpoint.slug, '{"n":2}');
    await waitFor(() => first.length === 2, "#1 and #2 live");
    live.close();
    expect(first).toEqual([
      { id: one, lastEventId: one },
      { id: two, lastEventId: two },
    ]);

    // While the client is away: #3 and #4, and an event whose id is a second older than #2 but
    // that commits only now (a slow upload or another instance's clock; stored after #2).
    const three = await capture(services, endpoint.slug, '{"n":3}');
    const four = await capture(services, endpoint.slug, '{"n":4}');
    const late = `${uuidv7Floor(uuidv7Timestamp(two).getTime() - 1_000).slice(0, 24)}${randomUUID().slice(24)}`;
    await database.query(
      `insert into events (id, endpoint_id, received_at, method, path, query, headers, body, content_type, size_bytes, client_ip, source, event_type, status)
       select $1, endpoint_id, $2, method, path, query, headers, $3, content_type, 9, client_ip, source, event_type, status from events where id = $4`,
      [late, uuidv7Timestamp(late), Buffer.from('{"n":"late"}'), one],
    );
    expect(late < two).toBe(true);

    const resumed: Received[] = [];
    const again = open(url, apiKey.key, resumed, two);
    try {
      await waitFor(() => resumed.length >= 3, "the resumed stream to catch up");
      // A fifth, live: the stream is past its catch-up, and nothing else was coming.
      const five = await capture(services, endpoint.slug, '{"n":5}');
      await waitFor(() => resumed.some((event) => event.id === five), "#5 live");
      // In commit order: the late one after #4.
      expect(resumed.map((event) => event.id)).toEqual([three, four, late, five]);
    } finally {
      again.close();
    }
  });
});
