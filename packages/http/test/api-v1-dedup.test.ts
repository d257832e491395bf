import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect } from "vitest";
import { silentLogger } from "@rehook/core";
import { captureRequest, type Services } from "@rehook/services";
import { parsePromText } from "@rehook/vitest-config/prometheus-text";
import { startSink, type Received } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { createCaptureHandler, createMetricsHandler, RehookMetrics } from "../src/index.js";
import { test } from "./api-server.js";
import { defaultBodies } from "./default-bodies.js";

// Deduplication through the public surfaces: the rule set and cleared over /api/v1, two
// deliveries with one id sent to the real capture handler, the repeat found by its status
// filter and on its own page, and counted on /metrics.

/** The capture URLs and /metrics as the server mounts them, over the fixture's services, with metrics of their own. */
async function startCaptureServer(services: Services) {
  const metrics = new RehookMetrics({ defaultMetrics: false });
  const capture = createCaptureHandler({
    capture: (input) => captureRequest(services, input),
    bodies: defaultBodies(),
    maxPayloadBytes: 1 << 20,
    maxHeaderCount: 100,
    trustedProxyHops: 0,
    logger: silentLogger,
    metrics,
  });
  const scrape = createMetricsHandler(metrics, {});
  const server: Server = createServer((req, res) => void (req.url === "/metrics" ? scrape(req, res) : capture(req, res)));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    duplicatesCounted: async () => parsePromText(await (await fetch(`${url}/metrics`)).text()).value("rehook_duplicate_events_total"),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The X-GitHub-Delivery a forwarded request carried. */
function deliveryIdOf(received: Received): string | undefined {
  const at = received.rawHeaders.findIndex((name, index) => index % 2 === 0 && name.toLowerCase() === "x-github-delivery");
  return at === -1 ? undefined : received.rawHeaders[at + 1];
}

describe("/api/v1 deduplication", () => {
  test("sets, changes and clears an endpoint's dedup rule, and refuses a bad one with what is wrong", async ({ api, apiKey }) => {
    const key = apiKey.key;
    const created = await api.call("POST", "/endpoints", { key, body: { name: "Deduped", dedup: { key: "auto", window_s: 86_400 } } });
    expect(created.status).toBe(201);
    expect(created.json.dedup).toEqual({ key: "auto", window_s: 86_400 });
    expect((await api.call("GET", `/endpoints/${created.json.id}`, { key })).json.dedup).toEqual({ key: "auto", window_s: 86_400 });

    const header = await api.call("PATCH", `/endpoints/${created.json.id}`, { key, body: { dedup: { key: { header: "X-Delivery" }, window_s: 60 } } });
    expect(header).toMatchObject({ status: 200, json: { dedup: { key: { header: "X-Delivery" }, window_s: 60 } } });
    // A patch that names other fields leaves the rule alone.
    expect((await api.call("PATCH", `/endpoints/${created.json.id}`, { key, body: { name: "Renamed" } })).json.dedup).toEqual({ key: { header: "X-Delivery" }, window_s: 60 });
    const json = await api.call("PATCH", `/endpoints/${created.json.id}`, { key, body: { dedup: { key: { json: "data.id" }, window_s: 604_800 } } });
    expect(json.json.dedup).toEqual({ key: { json: "data.id" }, window_s: 604_800 });

    // Each refusal names the field at fault, in core's words (the dashboard and the CLI say the same).
    const refusals: Array<[unknown, RegExp]> = [
      [{ key: "auto", window_s: 0 }, /window_s must be a whole number of seconds from 1 to 604,800/],
      [{ key: "auto", window_s: 604_801 }, /window_s must be a whole number of seconds from 1 to 604,800/],
      [{ key: "auto", window_s: 1.5 }, /window_s must be a whole number/],
      [{ key: "auto" }, /window_s/i],
      [{ key: "everything", window_s: 60 }, /key/i],
      [{ key: { header: "X Bad Header" }, window_s: 60 }, /HTTP header name/],
      [{ key: { json: "data..id" }, window_s: 60 }, /dotted path/],
      [{ key: "auto", window_s: 60, extra: true }, /"extra"/],
    ];
    for (const [dedup, message] of refusals) {
      const refused = await api.call("PATCH", `/endpoints/${created.json.id}`, { key, body: { dedup } });
      expect(refused.status, JSON.stringify(dedup)).toBe(400);
      expect(refused.json.error.code).toBe("validation_failed");
      expect(refused.json.error.message, JSON.stringify(dedup)).toMatch(message);
    }
    const refusedCreate = await api.call("POST", "/endpoints", { key, body: { name: "Bad rule", dedup: { key: "body", window_s: -1 } } });
    expect(refusedCreate.status).toBe(400);
    // The refusals changed nothing.
    expect((await api.call("GET", `/endpoints/${created.json.id}`, { key })).json.dedup).toEqual({ key: { json: "data.id" }, window_s: 604_800 });

    const cleared = await api.call("PATCH", `/endpoints/${created.json.id}`, { key, body: { dedup: null } });
    expect(cleared).toMatchObject({ status: 200, json: { dedup: null } });
    expect((await api.call("POST", "/endpoints", { key, body: { name: "No rule" } })).json.dedup).toBeNull();
  });

  test("stores a redelivery as a duplicate of the first, answers both 200, forwards one, lists and counts the repeat", async ({ api, apiKey, services }) => {
    const key = apiKey.key;
    const sink = await startSink((_req, res) => res.end("thanks"));
    const captures = await startCaptureServer(services);
    try {
      const endpoint = (
        await api.call("POST", "/endpoints", { key, body: { name: "GitHub", destination_url: `http://127.0.0.1:${sink.port}/in`, dedup: { key: "auto", window_s: 3600 } } })
      ).json as { id: string; slug: string };
      const deliver = async (delivery: string) => {
        const answer = await fetch(`${captures.url}/api/webhook/${endpoint.slug}`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-github-event": "push", "x-github-delivery": delivery },
          body: JSON.stringify({ ref: "refs/heads/main" }),
        });
        return { status: answer.status, body: (await answer.json()) as { eventId: string } };
      };

      const first = await deliver("72d3162e-cc78-11e3-81ab-4c9367dc0958");
      const repeat = await deliver("72d3162e-cc78-11e3-81ab-4c9367dc0958");
      const other = await deliver("8a0c5c5e-cc78-11e3-81ab-4c9367dc0958");
      expect([first.status, repeat.status, other.status]).toEqual([200, 200, 200]);
      expect(new Set([first.body.eventId, repeat.body.eventId, other.body.eventId]).size).toBe(3);

      const duplicates = await api.call("GET", `/events?status=duplicate&endpoint_id=${endpoint.id}`, { key });
      expect(duplicates.status).toBe(200);
      expect(duplicates.json.data).toEqual([expect.objectContaining({ id: repeat.body.eventId, status: "duplicate", duplicate_of: first.body.eventId })]);
      expect(duplicates.json.meta.total).toBe(1);

      const shown = await api.call("GET", `/events/${repeat.body.eventId}`, { key });
      expect(shown.json).toMatchObject({ id: repeat.body.eventId, status: "duplicate", duplicate_of: first.body.eventId, attempts: [] });
      expect((await api.call("GET", `/events/${first.body.eventId}`, { key })).json.duplicate_of).toBeNull();

      // The two others are delivered; the repeat never reaches the destination.
      await waitFor(async () => (await api.call("GET", `/events?status=delivered&endpoint_id=${endpoint.id}`, { key })).json.meta.total === 2, "the two first deliveries");
      expect(sink.received.map(deliveryIdOf).sort()).toEqual(["72d3162e-cc78-11e3-81ab-4c9367dc0958", "8a0c5c5e-cc78-11e3-81ab-4c9367dc0958"]);
      expect(await captures.duplicatesCounted()).toBe(1);

      // Cleared, the same delivery id is an event like any other again.
      await api.call("PATCH", `/endpoints/${endpoint.id}`, { key, body: { dedup: null } });
      const again = await deliver("72d3162e-cc78-11e3-81ab-4c9367dc0958");
      expect(again.status).toBe(200);
      expect((await api.call("GET", `/events/${again.body.eventId}`, { key })).json).toMatchObject({ status: expect.stringMatching(/^(pending|delivered)$/), duplicate_of: null });
      expect(await captures.duplicatesCounted()).toBe(1);
    } finally {
      await captures.close();
      await sink.close();
    }
  });
});
