import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { EventSource } from "eventsource";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stopPostmaster } from "@rehook/vitest-config/postmaster";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { exited, runCli, startRehook } from "./run-cli.js";

// Issue 41 (4.2): a deploy (SIGTERM, then a new server on the same port) must not end a
// standard EventSource client for good. The WHATWG algorithm retries a refused connection but
// never a non-200 answer, so the stream's end must not send it into the drain's 503.

let dataDir: string;
let apiKey: string;
let slug: string;
let endpointId: string;
const servers: Array<Awaited<ReturnType<typeof startRehook>>> = [];
let source: EventSource | undefined;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "rehook-restart-stream-"));
  const cli = { REHOOK_DATA_DIR: dataDir };
  expect((await runCli(["migrate"], cli)).code).toBe(0);
  expect((await runCli(["user", "create", "--email", "restart@example.com", "--password", "long enough"], cli)).code).toBe(0);
  ({ id: endpointId, slug } = JSON.parse((await runCli(["endpoint", "create", "--email", "restart@example.com", "--name", "restart"], cli)).stdout) as { id: string; slug: string });
  apiKey = (await runCli(["apikey", "create", "--email", "restart@example.com"], cli)).stdout.trim().split("\n").at(-1)!;
}, 120_000);
afterAll(async () => {
  source?.close();
  for (const server of servers) server.child.kill("SIGKILL");
  await stopPostmaster(dataDir);
  await rm(dataDir, { recursive: true, force: true });
});

/** Longer than the server's usual `retry: 2000`: a client that reconnects after 2 s lands inside it. */
const DRAIN_MS = 3_000;
/**
 * What the stream's last `retry:` adds to the drain: the client's first attempt comes this long
 * after the drain ends, a margin for the first server's close on a loaded machine (its default,
 * 30 s, would only make the test slow: an attempt before the new server is up is refused and retried).
 */
const RESTART_RETRY_MS = 5_000;

async function capture(url: string, body: object): Promise<void> {
  const response = await fetch(`${url}/api/webhook/${slug}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  expect(response.status).toBeLessThan(300);
}

describe("a standard EventSource client across a graceful restart", () => {
  it("keeps its stream: SIGTERM, a new server on the same port, and the same client receives the new server's events", { timeout: 120_000 }, async () => {
    const first = await startRehook({ REHOOK_DATA_DIR: dataDir, SHUTDOWN_DRAIN_MS: String(DRAIN_MS), STREAM_RESTART_RETRY_MS: String(RESTART_RETRY_MS) });
    servers.push(first);
    const port = new URL(first.url).port;
    const received: string[] = [];
    const errors: string[] = [];
    source = new EventSource(`${first.url}/api/v1/endpoints/${endpointId}/stream`, {
      fetch: (input, init) => fetch(input, { ...init, headers: { ...init?.headers, authorization: `Bearer ${apiKey}` } }),
    });
    source.addEventListener("webhook", (message) => received.push((JSON.parse(message.data) as { id: string; body_base64: string }).body_base64));
    source.addEventListener("error", (event) => errors.push(`${(event as { code?: number }).code ?? "network"}`));
    await waitFor(() => source!.readyState === source!.OPEN, "the stream to open", 20_000);

    await capture(first.url, { n: "before" });
    await waitFor(() => received.length === 1, "the first server's event");

    first.child.kill("SIGTERM");
    expect(await exited(first.child)).toBe(0);
    const second = await startRehook({ REHOOK_DATA_DIR: dataDir, PORT: port });
    servers.push(second);
    expect(second.url).toBe(first.url);

    await waitFor(() => source!.readyState === source!.OPEN, "the same client to reconnect to the new server", 60_000);
    await capture(second.url, { n: "after" });
    await waitFor(() => received.length === 2, "the new server's event");
    expect(received.map((body) => JSON.parse(Buffer.from(body, "base64").toString()))).toEqual([{ n: "before" }, { n: "after" }]);
    // It never met a 503 (which would have closed it for good), only refused connections while no server listened.
    expect(errors.filter((code) => code !== "network")).toEqual([]);
    second.child.kill("SIGINT");
    expect(await exited(second.child)).toBe(0);
  });
});
