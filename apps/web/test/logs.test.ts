import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "@rehook/core";
import { createTestDatabase, type TestDatabase } from "@rehook/vitest-config/postgres";
import { DASHBOARD_BUILD } from "./test-server.js";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { createLogger, startServer, type RehookServer } from "@rehook/server";
import { withRequestId } from "@rehook/server";
import { DashboardClient } from "./dashboard-client.js";

/** A stream that keeps everything written to it. */
function memorySink(): { stream: Writable; text(): string } {
  let written = "";
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      written += chunk.toString();
      done();
    },
  });
  return { stream, text: () => written };
}

// Everything the server logs, as written (LOG_FORMAT=json, LOG_LEVEL=debug: the most there is).
const serverLog = memorySink();

let db: TestDatabase;
let rehook: RehookServer;

beforeAll(async () => {
  db = await createTestDatabase();
  const config = loadConfig({ PORT: "0", HOST: "127.0.0.1", DATABASE_URL: db.url, LOG_LEVEL: "debug", LOG_FORMAT: "json" }, "/unused");
  rehook = await startServer(config, createLogger({ level: config.logLevel, format: config.logFormat, stream: serverLog.stream }), { dashboardBuild: DASHBOARD_BUILD });
});
afterAll(async () => {
  await rehook?.close();
  await db?.drop();
});

interface Line {
  level: string;
  time: string;
  msg: string;
  request_id?: string;
  path?: string;
  status?: number;
  [field: string]: unknown;
}

const parseLines = (text: string): Line[] =>
  text
    .split("\n")
    .filter(Boolean)
    .map((text) => JSON.parse(text) as Line);

describe("LOG_FORMAT=json", () => {
  it("writes parseable lines with level, time, msg and request ids, and never a secret", async () => {
    const user = new DashboardClient(rehook.url);
    expect((await user.postForm("/signup", { email: "logs@example.com", password: "a long enough password" })).status).toBeLessThan(400);
    const sessionId = /rehook_session=([^;]+)/.exec(user.cookie ?? "")![1]!;

    const created = await user.mutate("endpoints.create", { name: "logged", destinationUrl: null });
    const endpoint = created.body.result!.data.json as { id: string; slug: string };
    const revealed = await user.query("endpoints.secret", { id: endpoint.id });
    const secret = JSON.stringify(revealed.body.result!.data.json).match(/whsec_[A-Za-z0-9+/=]+/)![0];
    const hookUrl = "https://hooks.slack.com/services/T0LOGS/B0LOGS/hooksecretvalue123";
    expect((await user.mutate("notifications.save", { enabled: false, webhookUrl: hookUrl, triggers: ["failed"] })).status).toBe(200);
    const key = ((await user.mutate("apiKeys.create", { name: "logs" })).body.result!.data.json as { key: string }).key;

    // The public API with the key, once with the caller's own request id and once without.
    const own = await fetch(`${rehook.url}/api/v1/endpoints`, { headers: { authorization: `Bearer ${key}`, "x-request-id": "trace-42.a_b" } });
    expect(own.status).toBe(200);
    expect(own.headers.get("x-request-id")).toBe("trace-42.a_b");
    const generated = await fetch(`${rehook.url}/api/v1/endpoints?api_key=${key}`, { headers: { authorization: `Bearer ${key}`, "x-request-id": "not safe!" } });
    expect(generated.status).toBe(200);
    const generatedId = generated.headers.get("x-request-id")!;
    expect(generatedId).toMatch(/^[0-9a-f-]{36}$/);
    // A capture carrying credentials in its headers (they are stored, never logged).
    const captured = await fetch(`${rehook.url}/api/webhook/${endpoint.slug}`, {
      method: "POST",
      body: JSON.stringify({ secret }),
      headers: { authorization: `Bearer ${key}`, "stripe-signature": "t=1,v1=signaturevalue", cookie: `rehook_session=${sessionId}` },
    });
    expect(captured.status).toBe(200);
    const captureId = captured.headers.get("x-request-id")!;
    // A failing request logs its error inside the request too.
    await user.get("/api/events/not-an-event/body");

    const all = parseLines(serverLog.text());
    expect(all.length).toBeGreaterThan(5);
    for (const line of all) {
      expect(typeof line.level).toBe("string");
      expect(Number.isNaN(Date.parse(line.time))).toBe(false);
      expect(typeof line.msg).toBe("string");
    }
    for (const value of [key, secret, sessionId, hookUrl, "hooksecretvalue123", "signaturevalue"]) expect(serverLog.text()).not.toContain(value);

    // One access line per request, carrying the id answered in X-Request-Id.
    const access = all.filter((line) => line.msg === "request");
    // An API request's one line names the key by its display prefix (never the key).
    expect(access.filter((line) => line.request_id === "trace-42.a_b")).toMatchObject([{ level: "info", path: "/api/v1/endpoints", status: 200 }]);
    expect(access.filter((line) => line.request_id === generatedId)).toMatchObject([{ level: "info", path: "/api/v1/endpoints" }]);
    const apiLines = access.filter((line) => line.path === "/api/v1/endpoints");
    expect(apiLines).toHaveLength(2);
    for (const line of apiLines) expect(typeof line.key === "string" && line.key.length >= 8 && key.startsWith(line.key)).toBe(true);
    // A capture's line is at info, with its slug, event id and size (never its body).
    const eventId = ((await captured.json()) as { eventId: string }).eventId;
    expect(access.filter((line) => line.request_id === captureId)).toMatchObject([
      { level: "info", path: `/api/webhook/${endpoint.slug}`, slug: endpoint.slug, status: 200, event_id: eventId, bytes: JSON.stringify({ secret }).length },
    ]);
    expect(access.every((line) => typeof line.request_id === "string" && typeof line.duration_ms === "number")).toBe(true);
    // Only the access line: handlers annotate it rather than writing their own.
    expect(all.filter((line) => line.msg === "api request")).toEqual([]);
  });

  it("binds the request id to every line written inside the request, at any depth", async () => {
    const sink = memorySink();
    const logger = createLogger({ level: "info", format: "json", stream: sink.stream });
    await withRequestId("outer-1", async () => {
      await Promise.resolve();
      logger.warn("inside", { step: 1 });
    });
    logger.info("outside");
    // Lines are written once per turn of the event loop.
    await waitFor(() => parseLines(sink.text()).length === 2, "both lines written");
    const [inside, outside] = parseLines(sink.text());
    expect(inside).toMatchObject({ msg: "inside", request_id: "outer-1", step: 1 });
    expect(outside!.request_id).toBeUndefined();
  });
});
