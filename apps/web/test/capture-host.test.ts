import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "@rehook/core";
import { createLogger, startServer, type RehookServer } from "@rehook/server";
import { actorFor, createEndpoint, createUser } from "@rehook/services";
import { createTestDatabase, type TestDatabase } from "@rehook/vitest-config/postgres";
import { parsePromText } from "@rehook/vitest-config/prometheus-text";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { DashboardClient, fetchWithHost } from "./dashboard-client.js";
import { DASHBOARD_BUILD } from "./test-server.js";

// With CAPTURE_BASE_URL, capture URLs have a host of their own. By default they still answer
// on the dashboard's host (senders set up before keep delivering), and each such capture says
// so on its access line; with CAPTURE_ON_DASHBOARD_HOST=false they answer 421 there, store
// nothing, and are counted, while the capture host and the dashboard go on as before.

const DASHBOARD_HOST = "rehook.test";
const CAPTURE_HOST = "hooks.test";

/** A server with its JSON log lines kept. */
async function start(db: TestDatabase, env: Record<string, string>) {
  let written = "";
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      written += chunk.toString();
      done();
    },
  });
  const config = loadConfig(
    { PORT: "0", HOST: "127.0.0.1", DATABASE_URL: db.url, LOG_LEVEL: "info", LOG_FORMAT: "json", BASE_URL: `http://${DASHBOARD_HOST}`, CAPTURE_BASE_URL: `http://${CAPTURE_HOST}`, ...env },
    "/unused",
  );
  const rehook = await startServer(config, createLogger({ level: config.logLevel, format: config.logFormat, stream }), { dashboardBuild: DASHBOARD_BUILD });
  const requestLines = () =>
    written
      .split("\n")
      .filter(Boolean)
      .map((text) => JSON.parse(text) as Record<string, unknown>)
      .filter((line) => line.msg === "request");
  return { rehook, requestLines };
}

let db: TestDatabase;
let moving: Awaited<ReturnType<typeof start>>;
let moved: Awaited<ReturnType<typeof start>>;
let slug: string;
let endpointId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  [moving, moved] = await Promise.all([start(db, {}), start(db, { CAPTURE_ON_DASHBOARD_HOST: "false" })]);
  const services = moving.rehook.services;
  const user = await createUser(services, { email: "capture-host@example.com", password: "a long enough password" });
  const { actor } = await actorFor(services, { userId: user.id });
  const endpoint = await createEndpoint(services, { teamId: actor.teamId, name: "Moved", destinationUrl: null });
  [slug, endpointId] = [endpoint.slug, endpoint.id];
});
afterAll(async () => {
  await Promise.all([moving?.rehook.close(), moved?.rehook.close()]);
  await db?.drop();
});

function capture(server: RehookServer, host: string, body: string) {
  return fetchWithHost(new URL(`/api/webhook/${slug}`, server.url), host, { method: "POST", headers: { "content-type": "application/json" }, body });
}

const storedBodies = async () =>
  (await db.query<{ body: Buffer }>("select body from events where endpoint_id = $1", [endpointId])).map((row) => row.body.toString("utf8"));

describe("captures sent to the dashboard's host", { concurrent: true }, () => {
  it("are taken by default, each marked dashboard_host on its access line", async () => {
    expect((await capture(moving.rehook, DASHBOARD_HOST, '{"on":"dashboard host"}')).status).toBe(200);
    expect((await capture(moving.rehook, CAPTURE_HOST, '{"on":"capture host"}')).status).toBe(200);
    const lines = () => moving.requestLines().filter((line) => line.slug === slug);
    await waitFor(() => lines().length === 2, "both access lines");
    expect(lines().map((line) => line.dashboard_host ?? false)).toEqual([true, false]);
  });

  it("answer 421 with CAPTURE_ON_DASHBOARD_HOST=false, naming the capture URL, and store nothing", async () => {
    const refused = await capture(moved.rehook, DASHBOARD_HOST, '{"refused":true}');
    expect(refused.status).toBe(421);
    // Inert like every capture answer: the dashboard's host never serves a tenant's content.
    expect(refused.headers.get("content-security-policy")).toBe("default-src 'none'; sandbox");
    expect(refused.headers.get("x-content-type-options")).toBe("nosniff");
    const { error } = (await refused.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe("misdirected");
    expect(error.message).toContain(`http://${CAPTURE_HOST}/api/webhook/${slug}`);
    // The Host header is the client's word: it only routes. Any case of the same name is the same host.
    expect((await capture(moved.rehook, DASHBOARD_HOST.toUpperCase(), '{"refused":true}')).status).toBe(421);

    const taken = await capture(moved.rehook, CAPTURE_HOST, '{"taken":true}');
    expect(taken.status).toBe(200);
    expect(await storedBodies()).toContain('{"taken":true}');
    expect(await storedBodies()).not.toContain('{"refused":true}');
    const metrics = parsePromText(await (await fetch(`${moved.rehook.url}/metrics`)).text());
    expect(metrics.value("rehook_events_captured_total", { outcome: "rejected", reason: "misdirected" })).toBe(2);
  });

  it("leave the dashboard where it was: served at its host, 421 at the capture host", async () => {
    expect((await new DashboardClient(moved.rehook.url, `http://${DASHBOARD_HOST}`, DASHBOARD_HOST).get("/login")).status).toBe(200);
    expect((await new DashboardClient(moved.rehook.url, `http://${CAPTURE_HOST}`, CAPTURE_HOST).get("/login")).status).toBe(421);
  });
});
