import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isProcessAlive } from "@rehook/vitest-config/processes";
import { postmasterPid, stopPostmaster } from "@rehook/vitest-config/postmaster";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { exited, runCli, startRehook } from "./run-cli.js";

let dataDir: string;
let server: ChildProcess | undefined;



beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "rehook-embedded-"));
});
afterAll(async () => {
  server?.kill("SIGKILL");
  await stopPostmaster(dataDir);
  await rm(dataDir, { recursive: true, force: true });
});

describe("embedded PostgreSQL (no DATABASE_URL)", () => {
  it("a CLI command starts it, migrates, and stops it when done", async () => {
    const result = await runCli(["migrate"], { REHOOK_DATA_DIR: dataDir });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).applied).toContain("Migration20261121000000_initial");
    expect(await postmasterPid(dataDir)).toBeUndefined();
  });

  it("rehook start runs it; the CLI reuses it instead of starting a second one; SIGTERM stops both cleanly", async () => {
    // Long enough to see the drain from here; the test waits for the exit, not for the time.
    const env = { REHOOK_DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", SHUTDOWN_DRAIN_MS: "3000" };
    const started = await startRehook(env);
    server = started.child;
    const pid = await postmasterPid(dataDir);
    expect(pid).toBeDefined();

    const user = await runCli(["user", "create", "--email", "embedded@example.com", "--password", "long enough"], { REHOOK_DATA_DIR: dataDir });
    expect(user.code).toBe(0);
    const endpoint = await runCli(["endpoint", "create", "--email", "embedded@example.com", "--name", "e"], { REHOOK_DATA_DIR: dataDir });
    const { slug } = JSON.parse(endpoint.stdout);
    // The CLI left, the server's database is still the same process and still serves.
    expect(await postmasterPid(dataDir)).toBe(pid);
    const captured = await fetch(`${started.url}/api/webhook/${slug}`, { method: "POST", body: "{}" });
    expect(captured.status).toBe(200);

    expect((await fetch(`${started.url}/readyz`)).status).toBe(200);
    const exit = exited(server);
    server.kill("SIGTERM");
    // Draining: readiness refuses so a load balancer stops sending, yet requests are still served.
    await waitFor(async () => (await fetch(`${started.url}/readyz`)).status === 503, "readyz to answer 503 while draining");
    expect((await fetch(`${started.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${started.url}/api/webhook/${slug}`, { method: "POST", body: "{}" })).status).toBe(200);
    expect(await exit).toBe(0);
    expect(isProcessAlive(pid!)).toBe(false);
  });
});
