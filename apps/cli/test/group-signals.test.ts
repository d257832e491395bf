import { spawn, type ChildProcess } from "node:child_process";
import { copyFile, mkdir, mkdtemp, rm, symlink } from "node:fs/promises";
import { get, type IncomingMessage } from "node:http";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stopPostmaster } from "@rehook/vitest-config/postmaster";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { childEnv, exited, runCli } from "./run-cli.js";

// Issue 41 (3.1): a signal to the process group (Ctrl-C at a terminal, systemd's default
// KillMode=control-group) reaches every process of the group. Under `pnpm start` the wrappers
// used to pass their copies on, so rehook saw a second signal and skipped the drain. A group
// signal counts once; a real second one still cuts the stop short.

const REPOSITORY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
const STOP_WITHIN_MS = 20_000;

let dataDir: string;
let bundleDir: string;
let apiKey: string;
let slug: string;
let endpointId: string;
const children: ChildProcess[] = [];

/** How a server is started: as the README's `pnpm start` does (without its build step), or as the bundle's systemd unit does. */
type Launch = "pnpm" | "systemd";

function commandLine(launch: Launch): [string, string[]] {
  // pnpm rehook start: pnpm, then scripts/pnpm-foreground.mjs, then the CLI (three processes).
  if (launch === "pnpm") return ["pnpm", ["--silent", "rehook", "start"]];
  // ExecStart=/usr/bin/node /opt/rehook/bin/rehook.js start, with the bundle's layout (bin/ beside app/).
  return [process.execPath, [path.join(bundleDir, "bin/rehook.js"), "start"]];
}

/** Starts the server in a process group of its own, as a terminal's foreground job or a systemd unit's control group. */
async function startInGroup(launch: Launch) {
  const [command, args] = commandLine(launch);
  const child = spawn(command, args, {
    cwd: REPOSITORY,
    detached: true,
    env: childEnv({
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? tmpdir(),
      REHOOK_DATA_DIR: dataDir,
      PORT: "0",
      HOST: "127.0.0.1",
      LOG_LEVEL: "info",
      SHUTDOWN_DRAIN_MS: "1000",
    }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => (output += chunk.toString()));
  await waitFor(() => /listening on http/.test(output), `rehook to listen (${launch})`, 40_000);
  const url = /listening on (http:\/\/\S+)/.exec(output)![1]!;
  return { child, url, output: () => output, signalGroup: (signal: NodeJS.Signals) => process.kill(-child.pid!, signal) };
}

/** A capture whose body has not finished arriving: the stop must wait for it. Resolves with its answer's status line. */
async function captureInFlight(url: string) {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect(Number(port), hostname);
  socket.on("error", () => undefined);
  await new Promise<void>((resolve) => socket.once("connect", resolve));
  const body = '{"in":"flight"}';
  socket.write(`POST /api/webhook/${slug} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 3)}`);
  let answer = "";
  socket.on("data", (chunk: Buffer) => (answer += chunk.toString()));
  const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
  return {
    finish: () => socket.write(body.slice(3)),
    /** The status line once the socket closed (empty when the server dropped it unanswered). */
    status: async () => {
      await closed;
      return answer.split("\r\n")[0] ?? "";
    },
    destroy: () => socket.destroy(),
  };
}

/** An open /api/v1 event stream; resolves once the server has started it. */
async function openStream(url: string) {
  const response = await new Promise<IncomingMessage>((resolve, reject) => {
    get(`${url}/api/v1/endpoints/${endpointId}/stream`, { headers: { authorization: `Bearer ${apiKey}`, accept: "text/event-stream" } }, resolve).once("error", reject);
  });
  expect(response.statusCode).toBe(200);
  let ended = false;
  response.on("data", () => undefined);
  response.once("close", () => (ended = true));
  return { ended: () => ended };
}

function exitWithinBound(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the process did not exit within ${STOP_WITHIN_MS} ms`)), STOP_WITHIN_MS);
    void exited(child).then((code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

/** What the first stop logs once it has begun. */
const begun = (signal: NodeJS.Signals) => (signal === "SIGTERM" ? "draining for 1000 ms" : "finishing requests in flight");

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "rehook-group-"));
  // The bundle's layout: its bin/rehook.js beside app/ (here the repository's CLI).
  bundleDir = await mkdtemp(path.join(tmpdir(), "rehook-group-bundle-"));
  await mkdir(path.join(bundleDir, "bin"));
  await copyFile(path.join(REPOSITORY, "tooling/bundle/files/bin/rehook.js"), path.join(bundleDir, "bin/rehook.js"));
  await symlink(path.join(REPOSITORY, "apps/cli"), path.join(bundleDir, "app"));
  const cli = { REHOOK_DATA_DIR: dataDir };
  expect((await runCli(["migrate"], cli)).code).toBe(0);
  expect((await runCli(["user", "create", "--email", "group@example.com", "--password", "long enough"], cli)).code).toBe(0);
  const endpoint = JSON.parse((await runCli(["endpoint", "create", "--email", "group@example.com", "--name", "group"], cli)).stdout) as { id: string; slug: string };
  ({ id: endpointId, slug } = endpoint);
  apiKey = (await runCli(["apikey", "create", "--email", "group@example.com"], cli)).stdout.trim().split("\n").at(-1)!;
}, 120_000);

afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, "SIGKILL");
  await stopPostmaster(dataDir);
  await rm(dataDir, { recursive: true, force: true });
  await rm(bundleDir, { recursive: true, force: true });
});

// One server at a time: they share the data directory (and its embedded PostgreSQL).
describe("a signal to the whole process group", () => {
  for (const launch of ["pnpm", "systemd"] as const) {
    for (const signal of ["SIGTERM", "SIGINT"] as const) {
      it(`${signal} to ${launch === "pnpm" ? "`pnpm rehook start`" : "the systemd unit's command line"}'s group counts once: the stop waits for the request in flight`, async () => {
        const server = await startInGroup(launch);
        const upload = await captureInFlight(server.url);
        const stream = await openStream(server.url);
        const exit = exitWithinBound(server.child);
        server.signalGroup(signal);
        await waitFor(() => server.output().includes(begun(signal)), "the stop to begin");
        await waitFor(() => stream.ended(), "the stream to end");
        upload.finish();
        expect(await upload.status()).toMatch(/^HTTP\/1\.1 2\d\d/);
        expect(await exit).toBe(0);
        expect(server.output()).not.toContain("second");
        expect(server.output()).not.toContain("ELIFECYCLE");
      }, 60_000);
    }
  }

  it("a signal to pnpm alone starts the stop with its drain, and a second one to pnpm alone cuts it short", async () => {
    const server = await startInGroup("pnpm");
    const upload = await captureInFlight(server.url);
    const exit = exitWithinBound(server.child);
    // `kill <pid of pnpm>`: only pnpm gets it, and passes it on through the wrapper.
    server.child.kill("SIGINT");
    await waitFor(() => server.output().includes(begun("SIGINT")), "the first stop to begin");
    expect(server.output()).not.toContain("second");
    // pnpm passes a second Ctrl-C on as SIGTERM.
    server.child.kill("SIGINT");
    await waitFor(() => server.output().includes("second SIGTERM"), "the second signal to cut the stop short");
    expect(await exit).not.toBe(0);
    expect(await upload.status()).toBe("");
  }, 60_000);

  for (const [launch, signal] of [["pnpm", "SIGINT"], ["systemd", "SIGTERM"]] as const) {
    it(`a real second ${signal} to ${launch === "pnpm" ? "`pnpm rehook start`" : "the systemd unit's command line"}'s group still stops without waiting`, async () => {
      const server = await startInGroup(launch);
      const upload = await captureInFlight(server.url);
      const exit = exitWithinBound(server.child);
      server.signalGroup(signal);
      await waitFor(() => server.output().includes(begun(signal)), "the first stop to begin");
      server.signalGroup(signal);
      await waitFor(() => server.output().includes(`second ${signal}`), "the second signal to cut the stop short");
      expect(await exit).not.toBe(0);
      // The request in flight was dropped, not waited for.
      expect(await upload.status()).toBe("");
    }, 60_000);
  }
});
