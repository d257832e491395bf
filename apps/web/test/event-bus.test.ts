import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EventBus, type BusMessage } from "@rehook/db";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { deleteEndpoint } from "@rehook/services";
import { startTestServer, type TestServer } from "./test-server.js";

let a: TestServer;
let b: TestServer;
let bus: EventBus;
let sink: Sink;
const heard: BusMessage[] = [];

beforeAll(async () => {
  a = await startTestServer({ ALLOW_PRIVATE_DESTINATIONS: "true" });
  b = await startTestServer({ ALLOW_PRIVATE_DESTINATIONS: "true" }, a.db); // another instance, same database
  bus = await EventBus.connect(a.db.url);
  bus.subscribe((message) => heard.push(message));
  sink = await startSink((_req, res) => res.end());
});
afterAll(async () => {
  await bus.close();
  await sink.close();
  await b.close();
  await a.close();
});

describe("live event bus (LISTEN/NOTIFY)", () => {
  it("announces, to every instance's listeners, events created and their status changes", async () => {
    const endpoint = await a.createEndpoint("bus", `http://127.0.0.1:${sink.port}/`);
    // Captured by instance B; heard by a listener that only knows the database.
    const response = await fetch(`${b.rehook.url}/api/webhook/${endpoint.slug}`, { method: "POST", body: "{}" });
    const { eventId } = (await response.json()) as { eventId: string };
    await waitFor(() => heard.some((m) => m.type === "event.status" && m.id === eventId), "the delivered status to be announced");
    const aboutEvent = heard.filter((m) => "id" in m && m.id === eventId);
    expect(aboutEvent).toEqual([
      { type: "event.created", id: eventId, endpointId: endpoint.id, teamId: a.teamId, status: "pending" },
      { type: "event.status", id: eventId, endpointId: endpoint.id, teamId: a.teamId, status: "delivered" },
    ]);
    expect(heard).toContainEqual({ type: "endpoint.changed", id: endpoint.id, change: "created" });
  });

  it("announces deleted endpoints", async () => {
    const endpoint = await a.createEndpoint("short-lived");
    await deleteEndpoint({ orm: b.rehook.database.orm }, { teamId: a.teamId, endpoint: { slug: endpoint.slug } });
    await waitFor(() => heard.some((m) => m.type === "endpoint.changed" && m.id === endpoint.id && m.change === "deleted"), "the delete to be announced");
  });

  it("reconnects by itself after losing its connection, and says so", async () => {
    let reconnected = false;
    bus.onReconnect(() => (reconnected = true));
    await a.db.query("select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'rehook-bus' and datname = current_database()");
    await waitFor(() => reconnected, "the bus to reconnect");
    const endpoint = await a.createEndpoint("after-reconnect");
    await waitFor(() => heard.some((m) => m.type === "endpoint.changed" && m.id === endpoint.id), "an announcement after the reconnect");
  });
});
