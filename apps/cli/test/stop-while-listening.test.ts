import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isProcessAlive } from "@rehook/vitest-config/processes";
import { postmasterPid, stopPostmaster } from "@rehook/vitest-config/postmaster";
import { startSink, type Sink } from "@rehook/vitest-config/sink";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { childEnv, CLI, exited, runCli, startRehook } from "./run-cli.js";

// Issue 29: stopping `rehook start` while `rehook listen` is connected. The stop must end the
// stream, refuse the reconnects, finish within 15 s and stop the embedded PostgreSQL, with
// exit code 0; a second signal cuts the wait short but still stops the database.

const STOP_WITHIN_MS = 15_000;
const REPOSITORY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

let dataDir: string;
let local: Sink;
let apiKey: string;
let slug: string;
const children: ChildProcess[] = [];


/** `rehook start` on the embedded database, with `rehook listen` connected to it. */
async function startWithListener(env: Record<string, string> = {}) {
  const server = await startRehook({ REHOOK_DATA_DIR: dataDir, ...env });
  children.push(server.child);
  const database = await postmasterPid(dataDir);
  expect(database).toBeDefined();
  const listener = spawn(
    process.execPath,
    [CLI, "listen", "--endpoint", slug, "--forward", `http://127.0.0.1:${local.port}/hooks`, "--server", server.url, "--api-key", apiKey],
    { env: childEnv({ PATH: process.env.PATH ?? "", LOG_LEVEL: "warn", NO_COLOR: "1" }), stdio: ["ignore", "pipe", "pipe"] },
  );
  children.push(listener);
  let listened = "";
  listener.stdout!.on("data", (chunk: Buffer) => (listened += chunk.toString()));
  listener.stderr!.on("data", (chunk: Buffer) => (listened += chunk.toString()));
  await waitFor(() => listened.includes("● connected"), "listen to connect", 30_000);
  return { server, database: database!, listener, listened: () => listened };
}

/** The exit code, or a failure once `STOP_WITHIN_MS` has passed without an exit. */
function exitWithinBound(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the process did not exit within ${STOP_WITHIN_MS} ms`)), STOP_WITHIN_MS);
    void exited(child).then((code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

async function stopListener(listener: ChildProcess): Promise<void> {
  listener.kill("SIGINT");
  await exited(listener);
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "rehook-stop-"));
  local = await startSink((_req, res) => res.end("ok"));
  const cli = { REHOOK_DATA_DIR: dataDir };
  expect((await runCli(["migrate"], cli)).code).toBe(0);
  expect((await runCli(["user", "create", "--email", "stop@example.com", "--password", "long enough"], cli)).code).toBe(0);
  slug = JSON.parse((await runCli(["endpoint", "create", "--email", "stop@example.com", "--name", "stop"], cli)).stdout).slug;
  apiKey = (await runCli(["apikey", "create", "--email", "stop@example.com"], cli)).stdout.trim().split("\n").at(-1)!;
});
afterAll(async () => {
  for (const child of children) child.kill("SIGKILL");
  await stopPostmaster(dataDir);
  await local.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe("stopping rehook start while rehook listen is connected", () => {
  it("SIGINT ends the stream, exits 0 within 15 s and stops the embedded PostgreSQL", async () => {
    const { server, database, listener, listened } = await startWithListener();
    const exit = exitWithinBound(server.child);
    server.child.kill("SIGINT");
    expect(await exit).toBe(0);
    expect(isProcessAlive(database)).toBe(false);
    // The stream was ended by the server; listen keeps trying, and finds nothing to reconnect to.
    await waitFor(() => listened().includes("○ reconnecting"), "listen to see its stream end");
    expect(listened()).not.toContain("● reconnected");
    await stopListener(listener);
  }, 60_000);

  it("SIGTERM ends the stream when the drain starts, answers listen's reconnects 503, exits 0 within 15 s and stops the database", async () => {
    const { server, database, listener, listened } = await startWithListener({ SHUTDOWN_DRAIN_MS: "4000" });
    const exit = exitWithinBound(server.child);
    server.child.kill("SIGTERM");
    // While the server drains (still listening), listen's reconnect is refused, not given a new stream.
    await waitFor(() => listened().includes("the stream answered 503"), "listen's reconnect to be refused while draining");
    expect(server.child.exitCode).toBeNull();
    expect(await exit).toBe(0);
    expect(isProcessAlive(database)).toBe(false);
    expect(listened()).not.toContain("● reconnected");
    await stopListener(listener);
  }, 60_000);

  it("a second SIGINT stops waiting for the requests in flight, yet still stops the embedded PostgreSQL", async () => {
    const { server, database, listener } = await startWithListener();
    // A capture whose body never finishes arriving: the first stop would wait for it.
    const { hostname, port } = new URL(server.url);
    const upload: Socket = connect(Number(port), hostname);
    upload.on("error", () => undefined);
    await new Promise<void>((resolve) => upload.once("connect", resolve));
    upload.write(`POST /api/webhook/${slug} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`);

    const exit = exitWithinBound(server.child);
    server.child.kill("SIGINT");
    await waitFor(() => server.log().includes("finishing requests in flight"), "the first stop to begin");
    server.child.kill("SIGINT");
    // 130: cut short, as a shell reports an interrupted command.
    expect(await exit).toBe(130);
    expect(server.log()).toContain("second SIGINT");
    expect(isProcessAlive(database)).toBe(false);
    upload.destroy();
    await stopListener(listener);
  }, 60_000);

  it("`pnpm rehook start` stopped with Ctrl-C exits 0, without pnpm's ELIFECYCLE failure", async () => {
    // Its own process group, as a terminal's foreground job: Ctrl-C signals every process in it (pnpm, its child, rehook).
    const pnpm = spawn("pnpm", ["--silent", "rehook", "start"], {
      cwd: REPOSITORY,
      detached: true,
      env: childEnv({ PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? tmpdir(), REHOOK_DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info" }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    children.push(pnpm);
    let output = "";
    pnpm.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    pnpm.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
    await waitFor(() => /listening on http/.test(output), "rehook to listen under pnpm", 40_000);
    const database = await postmasterPid(dataDir);
    expect(database).toBeDefined();

    const exit = exitWithinBound(pnpm);
    process.kill(-pnpm.pid!, "SIGINT");
    expect(await exit).toBe(0);
    expect(output).not.toContain("ELIFECYCLE");
    expect(output).not.toContain("second SIGINT");
    expect(isProcessAlive(database!)).toBe(false);
  }, 60_000);
});
