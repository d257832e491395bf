import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postmasterPid, stopPostmaster } from "@rehook/vitest-config/postmaster";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { childEnv, CLI, exited, runCli, startRehook } from "./run-cli.js";

/*
 * `rehook start` on a port of its own (not 8080), with loopback destinations allowed and a
 * retention of its own; the CLI runs with nothing but the data directory, as a person would
 * from the same folder, and speaks for that server.
 */

let dataDir: string;
let port: number;
let server: { child: ChildProcess; url: string };
let sink: Sink;
const children: ChildProcess[] = [];
const EMAIL = "owner@example.com";

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port: free } = probe.address() as { port: number };
      probe.close(() => resolve(free));
    });
  });
}


/** The CLI with this data directory and nothing else set (plus `env`). */
const cli = (args: string[], env: Record<string, string> = {}) => runCli(args, { REHOOK_DATA_DIR: dataDir, ...env });

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "rehook-running-"));
  sink = await startSink((_req, res) => res.end("ok"));
  port = await freePort();
  server = await startRehook({ REHOOK_DATA_DIR: dataDir, PORT: String(port), ALLOW_PRIVATE_DESTINATIONS: "true", RETENTION_DAYS: "7", SHUTDOWN_DRAIN_MS: "0" });
  children.push(server.child);
  const user = await cli(["user", "create", "--email", EMAIL, "--password", "long enough"]);
  expect(user.code, user.stderr).toBe(0);
}, 180_000);

afterAll(async () => {
  for (const child of children) {
    child.kill("SIGKILL");
    await exited(child);
  }
  await stopPostmaster(dataDir);
  await sink.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe("the CLI speaks for the running server", { timeout: 180_000 }, () => {
  it("records itself in <data dir>/server.json: where it listens and what it allows", async () => {
    const file = path.join(dataDir, "server.json");
    await waitFor(async () => (await readFile(file, "utf8")).length > 0, "server.json");
    const record = JSON.parse(await readFile(file, "utf8"));
    expect(record).toMatchObject({
      pid: server.child.pid,
      url: `http://127.0.0.1:${port}`,
      base_url: `http://127.0.0.1:${port}`,
      capture_base_url: `http://127.0.0.1:${port}`,
      allow_private_destinations: true,
      retention_days: 7,
      database: "embedded",
    });
  });

  it("endpoint create and update print its webhook_url and retention, and accept a loopback destination as it does", async () => {
    const destination = `http://127.0.0.1:${sink.port}/hooks`;
    const created = await cli(["endpoint", "create", "--email", EMAIL, "--name", "local", "--destination", destination]);
    expect(created.code, created.stderr).toBe(0);
    const endpoint = JSON.parse(created.stdout);
    expect(endpoint.webhook_url).toBe(`${server.url}/api/webhook/${endpoint.slug}`);
    expect(endpoint).toMatchObject({ destination_url: destination, kept_for_days: 7 });

    // The URL it printed captures, and the loopback destination it accepted receives the forward.
    const captured = await fetch(endpoint.webhook_url, { method: "POST", body: '{"hello":"local"}' });
    expect(captured.status).toBe(200);
    await waitFor(() => sink.received.length === 1, "the forward to the loopback destination", 30_000);

    const updated = await cli(["endpoint", "update", "--email", EMAIL, "--slug", endpoint.slug, "--retry-preset", "hour"]);
    expect(updated.code, updated.stderr).toBe(0);
    expect(JSON.parse(updated.stdout).webhook_url).toBe(endpoint.webhook_url);
  });

  it("invite create prints a link to it", async () => {
    const invited = await cli(["invite", "create", "--email", EMAIL]);
    expect(invited.code, invited.stderr).toBe(0);
    const link = invited.stdout.trim().split("\n").at(-1)!;
    expect(link.startsWith(`${server.url}/signup?invite=`)).toBe(true);
  });

  it("BASE_URL and ALLOW_PRIVATE_DESTINATIONS set for the command still win", async () => {
    const [elsewhere, strict] = await Promise.all([
      cli(["endpoint", "create", "--email", EMAIL, "--name", "elsewhere"], { BASE_URL: "https://rehook.example.com" }),
      cli(["endpoint", "create", "--email", EMAIL, "--name", "strict", "--destination", `http://127.0.0.1:${sink.port}/`], { ALLOW_PRIVATE_DESTINATIONS: "false" }),
    ]);
    expect(elsewhere.code, elsewhere.stderr).toBe(0);
    expect(JSON.parse(elsewhere.stdout).webhook_url).toMatch(/^https:\/\/rehook\.example\.com\/api\/webhook\//);
    expect(strict.code).toBe(1);
    expect(strict.stderr).toMatch(/destination URL refused: blocked: loopback address/);
  });

  it("listen connects to it without --server or REHOOK_URL", async () => {
    const created = await cli(["endpoint", "create", "--email", EMAIL, "--name", "listened"]);
    const { slug } = JSON.parse(created.stdout);
    const key = (await cli(["apikey", "create", "--email", EMAIL])).stdout.trim().split("\n").at(-1)!;
    const listener = spawn(process.execPath, [CLI, "listen", "--endpoint", slug, "--forward", `http://127.0.0.1:${sink.port}/listened`, "--api-key", key, "--json"], {
      env: childEnv({ PATH: process.env.PATH ?? "", REHOOK_DATA_DIR: dataDir, LOG_LEVEL: "warn" }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(listener);
    let output = "";
    listener.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    listener.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    await waitFor(() => output.includes('"type":"connected"'), "listen to connect to the running server", 60_000);
    expect((await fetch(`${server.url}/api/webhook/${slug}`, { method: "POST", body: "{}" })).status).toBe(200);
    await waitFor(() => sink.received.some((request) => request.url === "/listened"), "listen to forward the event", 30_000);
    listener.kill("SIGINT");
    expect(await exited(listener)).toBe(0);
  });

  it("removes server.json when it stops; the CLI then goes back to its own settings", async () => {
    const exit = exited(server.child);
    server.child.kill("SIGTERM");
    expect(await exit).toBe(0);
    await expect(readFile(path.join(dataDir, "server.json"), "utf8")).rejects.toThrow(/ENOENT/);

    const created = await cli(["endpoint", "create", "--email", EMAIL, "--name", "offline"]);
    expect(created.code, created.stderr).toBe(0);
    expect(JSON.parse(created.stdout).webhook_url).toMatch(/^http:\/\/localhost:8080\/api\/webhook\//);
  });
});
