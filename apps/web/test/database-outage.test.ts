import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stopPostmaster } from "@rehook/vitest-config/postmaster";
import { loadConfig, silentLogger } from "@rehook/core";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "@rehook/db";
import { actorFor, createEndpoint, createUser } from "@rehook/services";
import { DASHBOARD_BUILD } from "./test-server.js";
import { startServer, type RehookServer } from "@rehook/server";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { parsePromText } from "@rehook/vitest-config/prometheus-text";

// This file runs its own embedded PostgreSQL so it can stop and restart it.
let dataDir: string;
let rehook: RehookServer;
let restarted: EmbeddedDatabase | undefined;
let captureUrl: string;


const captured = async (labels: Record<string, string>) => {
  const response = await fetch(`${rehook.url}/metrics`);
  expect(response.status).toBe(200);
  return parsePromText(await response.text()).value("rehook_events_captured_total", labels);
};
const post = (body: string) => fetch(captureUrl, { method: "POST", body, headers: { "content-type": "application/json" } });

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "rehook-outage-"));
  const config = loadConfig({ PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "silent" }, dataDir);
  rehook = await startServer(config, silentLogger, { dashboardBuild: DASHBOARD_BUILD });
  const ctx = { orm: rehook.database.orm, baseUrl: rehook.url, addressPolicy: { allowPrivate: false }, retentionDays: config.retentionDays };
  const user = await createUser(ctx, { email: "outage@example.com", password: "long enough" });
  const { actor } = await actorFor(ctx, { userId: user.id });
  const endpoint = await createEndpoint(ctx, { teamId: actor.teamId, name: "outage" });
  captureUrl = endpoint.webhookUrl;
});

afterAll(async () => {
  await rehook.close();
  await restarted?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe("when the database goes away", () => {
  it("answers 503 (never 200) while it is down, and 200 again once it is back", async () => {
    expect((await post('{"n":1}')).status).toBe(200);

    await stopPostmaster(dataDir);

    const refused = await post('{"n":2}');
    expect(refused.status).toBe(503);
    expect(refused.headers.get("retry-after")).toBe("5");
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("unavailable");
    const readiness = await fetch(`${rehook.url}/readyz`);
    expect(readiness.status).toBe(503);
    expect(((await readiness.json()) as { error: { code: string } }).error.code).toBe("unavailable");
    // Liveness says only that the process serves: restarting it would not bring the database back.
    expect((await fetch(`${rehook.url}/healthz`)).status).toBe(200);
    // The metrics still answer, promptly, and count the refusal.
    const scrapeStarted = Date.now();
    expect(await captured({ outcome: "rejected", reason: "unavailable" })).toBe(1);
    expect(Date.now() - scrapeStarted).toBeLessThan(3_000);
    expect(await captured({ outcome: "stored" })).toBe(1);

    restarted = await startEmbeddedPostgres({ dataDir }); // same data, same port
    await waitFor(async () => (await fetch(`${rehook.url}/readyz`)).status === 200, "readyz to recover");

    const accepted = await post('{"n":3}');
    expect(accepted.status).toBe(200);
    const { eventId } = (await accepted.json()) as { eventId: string };
    const bodies = await rehook.database.orm.em.getConnection().execute<{ body: Buffer }[]>("select body from events order by id");
    expect(bodies.map((row) => row.body.toString())).toEqual(['{"n":1}', '{"n":3}']);
    expect(eventId).toBeTruthy();
  });
});
