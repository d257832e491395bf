import { createHmac } from "node:crypto";
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

/**
 * The capture URLs and /metrics as the server mounts them, over the fixture's services, with
 * metrics of their own (`now`: the clock signatures are checked by; unset, the services').
 */
async function startCaptureServer(services: Services, now?: () => number) {
  const metrics = new RehookMetrics({ defaultMetrics: false });
  const ctx = now ? { ...services, now } : services;
  const capture = createCaptureHandler({
    capture: (input) => captureRequest(ctx, input),
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

describe("deduplication on an endpoint that checks signatures without refusing", () => {
  // The clock the capture checks Stripe's timestamps by, and the time the test signs at.
  const NOW_MS = 1_800_000_000_000;
  const nowSeconds = Math.floor(NOW_MS / 1000);
  const githubSecret = "the github secret";
  const stripeSecret = "whsec_the_stripe_secret";
  const signGithub = (body: string) => `sha256=${createHmac("sha256", githubSecret).update(body).digest("hex")}`;
  const signStripe = (body: string) => `t=${nowSeconds},v1=${createHmac("sha256", stripeSecret).update(`${nowSeconds}.${body}`).digest("hex")}`;

  // One sender per scheme: how it names the key (a header or a JSON field) and signs a body.
  const senders = [
    {
      scheme: "github",
      secret: githubSecret,
      dedup: { key: { header: "X-GitHub-Delivery" }, window_s: 3600 },
      request: (key: string, body: string, signature: string | null) => ({
        headers: { "content-type": "application/json", "x-github-event": "push", "x-github-delivery": key, ...(signature ? { "x-hub-signature-256": signature } : {}) },
        body,
      }),
      body: (_key: string, text: string) => JSON.stringify({ ref: "refs/heads/main", text }),
      sign: signGithub,
    },
    {
      scheme: "stripe",
      secret: stripeSecret,
      dedup: { key: { json: "id" }, window_s: 3600 },
      request: (_key: string, body: string, signature: string | null) => ({
        headers: { "content-type": "application/json", ...(signature ? { "stripe-signature": signature } : {}) },
        body,
      }),
      body: (key: string, text: string) => JSON.stringify({ id: key, object: "event", type: "invoice.paid", text }),
      sign: signStripe,
    },
  ];

  test.for(senders)(
    "$scheme: an unsigned or forged request never takes the key from the signed delivery, and a forgery after it is its duplicate",
    async ({ scheme, secret, dedup, request, body, sign }, { api, apiKey, services }) => {
      const key = apiKey.key;
      const sink = await startSink((_req, res) => res.end("thanks"));
      const captures = await startCaptureServer(services, () => NOW_MS);
      try {
        const endpoint = (
          await api.call("POST", "/endpoints", {
            key,
            body: { name: `Observed ${scheme}`, destination_url: `http://127.0.0.1:${sink.port}/in`, verification: { scheme, secret, reject_invalid: false }, dedup },
          })
        ).json as { id: string; slug: string };
        const send = async (deliveryKey: string, text: string, signature: "signed" | "unsigned" | "forged") => {
          const payload = body(deliveryKey, text);
          const header = signature === "signed" ? sign(payload) : signature === "forged" ? sign(`${payload} `) : null;
          const { headers } = request(deliveryKey, payload, header);
          const answer = await fetch(`${captures.url}/api/webhook/${endpoint.slug}`, { method: "POST", headers, body: payload });
          expect(answer.status).toBe(200);
          const { eventId } = (await answer.json()) as { eventId: string };
          return (await api.call("GET", `/events/${eventId}`, { key })).json as { id: string; status: string; signature: string; duplicate_of: string | null };
        };

        // The attacker comes first, unsigned and then with a signature that does not verify.
        const unsigned = await send("evt_1", "from the attacker", "unsigned");
        const forged = await send("evt_1", "from the attacker again", "forged");
        expect([unsigned.signature, forged.signature]).toEqual(["missing", "invalid"]);
        // Neither claimed the key, so neither is the other's duplicate (each is forwarded, as without dedup).
        expect([unsigned.duplicate_of, forged.duplicate_of]).toEqual([null, null]);
        expect([unsigned.status, forged.status]).not.toContain("duplicate");

        // The sender's signed delivery is the key's first event, forwarded.
        const genuine = await send("evt_1", "from the sender", "signed");
        expect(genuine).toMatchObject({ signature: "valid", duplicate_of: null });
        expect(genuine.status).not.toBe("duplicate");
        // Its redelivery is its duplicate, and so is a forgery that repeats its key now.
        const redelivery = await send("evt_1", "from the sender", "signed");
        const lateForgery = await send("evt_1", "from the attacker, late", "unsigned");
        expect(redelivery).toMatchObject({ status: "duplicate", signature: "valid", duplicate_of: genuine.id });
        expect(lateForgery).toMatchObject({ status: "duplicate", signature: "missing", duplicate_of: genuine.id });

        // Forwarded: the two early requests and the genuine delivery, never the repeats.
        await waitFor(() => sink.received.length === 3, "three forwarded requests");
        const forwarded = sink.received.map((received) => JSON.parse(received.body.toString("utf8")).text as string);
        expect(forwarded.sort()).toEqual(["from the attacker", "from the attacker again", "from the sender"]);
        const duplicates = await api.call("GET", `/events?status=duplicate&endpoint_id=${endpoint.id}`, { key });
        expect(duplicates.json.data.map((event: { id: string }) => event.id).sort()).toEqual([redelivery.id, lateForgery.id].sort());
      } finally {
        await captures.close();
        await sink.close();
      }
    },
  );
});
