import { monitorEventLoopDelay } from "node:perf_hooks";
import { Worker } from "node:worker_threads";
import { describe, expect } from "vitest";
import { MAX_DESTINATIONS_PER_ENDPOINT, MAX_FILTER_IN_VALUES } from "@rehook/core";
import { actorFor, createApiKey, createDestination, createEndpoint, type Services } from "@rehook/services";
import type { RehookServer } from "@rehook/server";
import { test as databaseTest } from "@rehook/vitest-config/fixtures";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { newPerson, startTeamServer } from "./team-world.js";

// Issue 41: a routing filter inside every documented limit, a 1,000-object composite $in on
// every one of an endpoint's 20 destinations, once froze the whole server for seconds to
// minutes per capture (a deep comparison of every reached element with every value, on the
// main thread). Here such captures go through a real server over HTTP while the event loop's
// delay is measured: it must never be held 50 ms, and the verdicts must still be right.

const MiB = 1024 * 1024;
/** The documented limit: no capture may hold the event loop longer than this. */
const MAX_LOOP_DELAY_MS = 50;

/** The filter of the issue: {"body.items": {"$in": [1,000 small objects]}}, about 10 KiB (the limit is 16); the last value has two keys. */
const HOSTILE_FILTER = { "body.items": { $in: [...Array.from({ length: MAX_FILTER_IN_VALUES - 1 }, (_, i) => ({ a: i })), { a: -1, b: "x" }] } };

/** The same filter, each destination's differing by its last value: 20 distinct filters, evaluated one after another. */
const distinctHostileFilter = (i: number) => ({ "body.items": { $in: [...HOSTILE_FILTER["body.items"].$in.slice(0, -1), { a: -1, b: `x${i}` }] } });

/**
 * A JSON body of about `bytes` whose items look like the filter's values but equal none,
 * except the last when `matching` (its keys in the other order: canonical JSON must see it).
 * Built and sent by a client on a thread of its own (below), so this one measures only the server.
 */
function hostileBody(bytes: number, matching: boolean): string {
  const parts: string[] = [];
  let size = 12;
  for (let i = 0; size < bytes - 40; i += 1) {
    const text = `{"a":${1000 + (i % 50_000)}}`;
    parts.push(text);
    size += text.length + 1;
  }
  if (matching) parts.push(`{"b":"x","a":-1}`);
  return `{"items":[${parts.join(",")}]}`;
}

/** Builds the body and posts it from a worker thread: its CPU work and garbage are not the server's event loop's. */
function postFromThread(url: string, bytes: number, matching: boolean): { ready: Promise<void>; send(): Promise<{ status: number; text: string }> } {
  const code = `
    const { parentPort, workerData } = require("node:worker_threads");
    const hostileBody = ${hostileBody.toString()};
    const body = Buffer.from(hostileBody(workerData.bytes, workerData.matching));
    parentPort.postMessage("ready");
    parentPort.once("message", async () => {
      const response = await fetch(workerData.url, { method: "POST", headers: { "content-type": "application/json" }, body });
      parentPort.postMessage({ status: response.status, text: await response.text() });
    });`;
  const worker = new Worker(code, { eval: true, workerData: { url, bytes, matching } });
  const ready = new Promise<void>((resolve, reject) => {
    worker.once("message", () => resolve());
    worker.once("error", reject);
  });
  return {
    ready,
    async send() {
      const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
        worker.once("message", resolve);
        worker.once("error", reject);
      });
      worker.postMessage("go");
      try {
        return await answer;
      } finally {
        await worker.terminate();
      }
    },
  };
}

interface World {
  rehook: RehookServer;
  services: Services;
  sink: Sink;
  slug: string;
  /** An endpoint whose 20 destinations' filters all differ (no evaluation is shared). */
  distinctSlug: string;
  /** An endpoint of the same team without destinations: the baseline for the largest body. */
  plainSlug: string;
  key: string;
}

const test = databaseTest.extend<{ world: World }>({
  world: [
    async ({ database }, use) => {
      const sink = await startSink((_req, res) => res.end("ok"));
      const rehook = await startTeamServer(database);
      const services = rehook.services;
      try {
        const owner = await newPerson(services, "filters");
        const { actor } = await actorFor(services, { userId: owner.id, teamId: owner.personalTeamId });
        const endpoint = await createEndpoint(services, { teamId: owner.personalTeamId, name: "hostile filters" });
        for (let i = 0; i < MAX_DESTINATIONS_PER_ENDPOINT; i += 1) {
          await createDestination(services, { teamId: owner.personalTeamId, endpointId: endpoint.id, name: `d${i}`, url: `http://127.0.0.1:${sink.port}/d${i}`, filter: HOSTILE_FILTER });
        }
        const distinct = await createEndpoint(services, { teamId: owner.personalTeamId, name: "distinct hostile filters" });
        for (let i = 0; i < MAX_DESTINATIONS_PER_ENDPOINT; i += 1) {
          await createDestination(services, { teamId: owner.personalTeamId, endpointId: distinct.id, name: `e${i}`, url: `http://127.0.0.1:${sink.port}/e${i}`, filter: distinctHostileFilter(i) });
        }
        const plain = await createEndpoint(services, { teamId: owner.personalTeamId, name: "no destinations" });
        const { key } = await createApiKey(services, actor, { name: "filters", role: "admin" });
        await use({ rehook, services, sink, slug: endpoint.slug, distinctSlug: distinct.slug, plainSlug: plain.slug, key });
      } finally {
        await rehook.close();
        await sink.close();
      }
    },
    { scope: "file" },
  ],
});

/**
 * An idle event loop on a thread of its own, measuring its delay: what the operating system and
 * the machine's load inflict on any thread meanwhile (on a loaded 2-core machine, 30 ms and more
 * now and then), which the server's own delay includes too.
 */
function idleReference(): { stop(): Promise<number> } {
  const code = `
    const { parentPort } = require("node:worker_threads");
    const { monitorEventLoopDelay } = require("node:perf_hooks");
    const histogram = monitorEventLoopDelay({ resolution: 5 });
    histogram.enable();
    parentPort.once("message", () => { histogram.disable(); parentPort.postMessage(histogram.max / 1e6); });`;
  const worker = new Worker(code, { eval: true });
  return {
    async stop() {
      const max = new Promise<number>((resolve) => worker.once("message", resolve));
      worker.postMessage("stop");
      try {
        return await max;
      } finally {
        await worker.terminate();
      }
    },
  };
}

/**
 * Posts a hostile body of about `bytes` to the capture URL while the event loop's delay is
 * measured; answers the event id, the longest delay and the idle reference's longest delay
 * (both in ms) over the same time.
 */
async function captureMeasured(world: World, bytes: number, matching: boolean, slug = world.slug): Promise<Measured> {
  const client = postFromThread(`${world.rehook.url}/api/webhook/${slug}`, bytes, matching);
  await client.ready;
  const reference = idleReference();
  const histogram = monitorEventLoopDelay({ resolution: 5 });
  histogram.enable();
  try {
    const answer = await client.send();
    expect(answer.status).toBe(200);
    const { eventId } = JSON.parse(answer.text) as { eventId: string };
    return { eventId, maxDelayMs: histogram.max / 1e6, referenceMs: await reference.stop() };
  } finally {
    histogram.disable();
  }
}

interface Measured {
  eventId: string;
  maxDelayMs: number;
  referenceMs: number;
}

/**
 * The event loop's longest delay beyond what an idle thread saw over the same time, least of
 * `tries` captures: a capture that holds the loop holds it every time; the machine's noise
 * does not.
 */
async function quietestOf(tries: number, capture: () => Promise<Measured>): Promise<{ eventIds: string[]; heldMs: number; figures: string }> {
  const results: Measured[] = [];
  for (let i = 0; i < tries; i += 1) results.push(await capture());
  const held = results.map((result) => Math.max(0, result.maxDelayMs - result.referenceMs));
  const figures = results.map((result) => `${result.maxDelayMs.toFixed(1)} (idle thread ${result.referenceMs.toFixed(1)})`).join(", ");
  return { eventIds: results.map((result) => result.eventId), heldMs: Math.min(...held), figures };
}

interface WireDelivery {
  destination_id: string;
  status: string;
  filter_reason: string | null;
}

async function deliveriesOf(world: World, eventId: string): Promise<WireDelivery[]> {
  const response = await fetch(`${world.rehook.url}/api/v1/events/${eventId}`, { headers: { authorization: `Bearer ${world.key}` } });
  expect(response.status).toBe(200);
  return ((await response.json()) as { deliveries: WireDelivery[] }).deliveries;
}

describe("a capture through 20 destinations with 1,000-object $in filters", () => {
  test("never holds the event loop 50 ms, and a 1 MiB body still matches every destination", async ({ world }) => {
    // A warm-up capture: the first one also pays for compiling code, which is not what is measured.
    await captureMeasured(world, 64 * 1024, false);
    const { eventIds, heldMs, figures } = await quietestOf(3, () => captureMeasured(world, 1 * MiB, true));
    console.info(`1 MiB capture to 20 hostile filters, longest event-loop delay in ms: ${figures}`);
    expect(heldMs).toBeLessThan(MAX_LOOP_DELAY_MS);
    for (const eventId of eventIds) {
      await waitFor(async () => (await deliveriesOf(world, eventId)).every((delivery) => delivery.status === "delivered"), "every destination delivered");
      const deliveries = await deliveriesOf(world, eventId);
      expect(deliveries).toHaveLength(MAX_DESTINATIONS_PER_ENDPOINT);
      expect(deliveries.every((delivery) => delivery.filter_reason === null)).toBe(true);
    }
  }, 120_000);

  // The largest body is held on the event loop by more than filters: reading it, and writing it
  // to PostgreSQL (copies of 10 MiB), which on this 2-core machine under load took 80–170 ms on
  // an endpoint without any destination. So the filters' part is measured against that
  // endpoint in the same run: they must add nothing that a 10 MiB capture does not already do.
  test("at the largest body (MAX_PAYLOAD_BYTES) the filters are cut short, each filtered delivery says why, and they hold the loop no longer than the capture itself", async ({ world }) => {
    const largest = 10 * MiB - 1024;
    const plain = await quietestOf(3, () => captureMeasured(world, largest, true, world.plainSlug));
    const { eventIds, heldMs, figures } = await quietestOf(3, () => captureMeasured(world, largest, true));
    console.info(`10 MiB capture, longest event-loop delay in ms: 20 hostile filters ${figures}; no destination ${plain.figures}`);
    // The filters' share is held to the documented bound on top of what the plain capture holds anyway.
    expect(heldMs).toBeLessThan(plain.heldMs + MAX_LOOP_DELAY_MS);
    for (const eventId of eventIds) {
      const deliveries = await deliveriesOf(world, eventId);
      expect(deliveries.map((delivery) => [delivery.status, delivery.filter_reason])).toEqual(Array.from({ length: MAX_DESTINATIONS_PER_ENDPOINT }, () => ["filtered", "work_budget_exceeded"]));
    }
  }, 180_000);

  test("20 filters that differ by their last value (none shared) still never hold the event loop 50 ms, and those the budget cut short say so", async ({ world }) => {
    await captureMeasured(world, 64 * 1024, false, world.distinctSlug);
    const { eventIds, heldMs, figures } = await quietestOf(3, () => captureMeasured(world, 1 * MiB, true, world.distinctSlug));
    console.info(`1 MiB capture to 20 distinct hostile filters, longest event-loop delay in ms: ${figures}`);
    expect(heldMs).toBeLessThan(MAX_LOOP_DELAY_MS);
    for (const eventId of eventIds) {
      const deliveries = await deliveriesOf(world, eventId);
      expect(deliveries).toHaveLength(MAX_DESTINATIONS_PER_ENDPOINT);
      // One budget for all 20: the first filters may finish (a no_match: the body's last item matches none of them), the rest are cut short.
      const reasons = deliveries.map((delivery) => delivery.filter_reason);
      expect(reasons.filter((reason) => reason === "work_budget_exceeded").length).toBeGreaterThan(0);
      expect(reasons.every((reason) => reason === "work_budget_exceeded" || reason === "no_match")).toBe(true);
    }
  }, 120_000);

  test("a small body that no filter takes is filtered with the reason no_match", async ({ world }) => {
    const { eventId } = await captureMeasured(world, 0, false);
    const deliveries = await deliveriesOf(world, eventId);
    expect(deliveries.map((delivery) => [delivery.status, delivery.filter_reason])).toEqual(Array.from({ length: MAX_DESTINATIONS_PER_ENDPOINT }, () => ["filtered", "no_match"]));
  });
});
