import { readdirSync } from "node:fs";
import path from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "@rehook/core";
import { createLogger, startServer, type RehookServer } from "@rehook/server";
import { actorFor, createEndpoint, createUser } from "@rehook/services";
import { createTestDatabase, type TestDatabase } from "@rehook/vitest-config/postgres";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { DASHBOARD_BUILD } from "./test-server.js";

// At LOG_LEVEL=info (the default) every capture has its line: what an operator needs to see
// that webhooks arrive. The dashboard's built files and health probes are routine: debug.

let written = "";
const logStream = new Writable({
  write(chunk: Buffer, _encoding, done) {
    written += chunk.toString();
    done();
  },
});

interface Line {
  level: string;
  msg: string;
  path?: string;
  [field: string]: unknown;
}
const lines = (): Line[] =>
  written
    .split("\n")
    .filter(Boolean)
    .map((text) => JSON.parse(text) as Line);
const linesFor = (path: string) => lines().filter((line) => line.msg === "request" && line.path === path);

let db: TestDatabase;
let rehook: RehookServer;

beforeAll(async () => {
  db = await createTestDatabase();
  const config = loadConfig({ PORT: "0", HOST: "127.0.0.1", DATABASE_URL: db.url, LOG_LEVEL: "info", LOG_FORMAT: "json" }, "/unused");
  rehook = await startServer(config, createLogger({ level: config.logLevel, format: config.logFormat, stream: logStream }), { dashboardBuild: DASHBOARD_BUILD });
});
afterAll(async () => {
  await rehook?.close();
  await db?.drop();
});

describe("request lines at LOG_LEVEL=info", () => {
  it("logs each capture (method, slug, status, event id, bytes, duration), never its body or headers", async () => {
    const user = await createUser(rehook.services, { email: "capture-logs@example.com", password: "a long enough password" });
    const { actor } = await actorFor(rehook.services, { userId: user.id });
    const endpoint = await createEndpoint(rehook.services, { teamId: actor.teamId, name: "logged captures", destinationUrl: null });
    const body = JSON.stringify({ card: "4242-body-marker" });
    const captured = await fetch(`${rehook.url}/api/webhook/${endpoint.slug}/sub?token=query-marker`, {
      method: "POST",
      body,
      headers: { "content-type": "application/json", authorization: "Bearer header-marker" },
    });
    expect(captured.status).toBe(200);
    const { eventId } = (await captured.json()) as { eventId: string };
    const unknown = await fetch(`${rehook.url}/api/webhook/no-such-endpoint-here`, { method: "POST", body: "x" });
    expect(unknown.status).toBe(404);

    const capturePath = `/api/webhook/${endpoint.slug}/sub`;
    await waitFor(() => linesFor(capturePath).length === 1 && linesFor("/api/webhook/no-such-endpoint-here").length === 1, "the capture lines");
    const [line] = linesFor(capturePath);
    expect(line).toMatchObject({ level: "info", method: "POST", slug: endpoint.slug, status: 200, event_id: eventId, bytes: Buffer.byteLength(body) });
    expect(typeof line!.duration_ms).toBe("number");
    expect(linesFor("/api/webhook/no-such-endpoint-here")).toMatchObject([{ level: "info", method: "POST", slug: "no-such-endpoint-here", status: 404 }]);
    for (const secret of ["4242-body-marker", "query-marker", "header-marker"]) expect(written).not.toContain(secret);
  });

  it("writes no line for the dashboard's /assets files or health probes", async () => {
    const asset = readdirSync(path.join(DASHBOARD_BUILD, "client", "assets")).find((name) => name.endsWith(".js"))!;
    const assetPath = `/assets/${asset}`;
    expect((await fetch(`${rehook.url}${assetPath}`)).status).toBe(200);
    expect((await fetch(`${rehook.url}/healthz`)).status).toBe(200);
    // A page request after them: once its line is written, theirs would have been too.
    expect((await fetch(`${rehook.url}/login`)).status).toBe(200);
    await waitFor(() => linesFor("/login").length === 1, "the page's line");
    expect(linesFor(assetPath)).toEqual([]);
    expect(linesFor("/healthz")).toEqual([]);
  });
});
