import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPool, startEmbeddedPostgres } from "@rehook/db";
import { isProcessAlive, parentPid } from "@rehook/vitest-config/processes";
import { postmasterPid, stopPostmaster } from "@rehook/vitest-config/postmaster";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { exited, runCli, startRehook } from "./run-cli.js";

let dataDir: string;
let server: { child: ChildProcess; url: string; log: () => string } | undefined;
let slug: string;
let stored = 0;


/** The workers the primary reported listening, in order. */
const listeningWorkers = () => [...server!.log().matchAll(/worker listening worker=(\d+)/g)].map((match) => Number(match[1]));

/** The workers whose access lines show a capture. */
const capturingWorkers = () =>
  new Set([...server!.log().matchAll(/request method="POST" path="\/api\/webhook\/[^"]+" status=200 .*worker=(\d+)/g)].map((match) => Number(match[1])));

/** A capture on a connection of its own: the primary hands each new connection to the next worker. */
function captureOnNewConnection(): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(`${server!.url}/api/webhook/${slug}`, { method: "POST", agent: false, headers: { "content-type": "application/json" } }, (res) => {
      res.resume();
      res.on("end", () => {
        if (res.statusCode === 200) stored += 1;
        resolve(res.statusCode!);
      });
    });
    req.on("error", reject);
    req.end("{}");
  });
}

/** Captures on new connections until every one of `pids` has logged one. */
async function captureUntilServedBy(pids: number[]): Promise<void> {
  await waitFor(async () => {
    expect(await captureOnNewConnection()).toBe(200);
    const seen = capturingWorkers();
    return pids.every((pid) => seen.has(pid));
  }, `captures answered by workers ${pids.join(", ")}`);
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "rehook-workers-"));
});
afterAll(async () => {
  // Workers first, while they are still the primary's: a pid from the log may be another process's by now.
  const primary = server?.child.pid;
  for (const pid of server ? listeningWorkers() : []) if (primary !== undefined && parentPid(pid) === primary) process.kill(pid, "SIGKILL");
  server?.child.kill("SIGKILL");
  await stopPostmaster(dataDir);
  await rm(dataDir, { recursive: true, force: true });
});

describe("rehook start --workers", () => {
  it("refuses --workers 0, --workers x and WORKERS=65 with one line and a non-zero exit", async () => {
    const cases: Array<[string[], Record<string, string>]> = [
      [["start", "--workers", "0"], {}],
      [["start", "--workers", "x"], {}],
      [["start"], { WORKERS: "65" }],
    ];
    for (const [args, env] of cases) {
      const result = await runCli(args, { REHOOK_DATA_DIR: dataDir, PORT: "0", ...env });
      expect(result.code).not.toBe(0);
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
      expect(result.stderr).toMatch(/workers: must be an integer from 1 to 64, or auto|--workers must be an integer from 1 to 64, or auto/i);
    }
    expect(await postmasterPid(dataDir)).toBeUndefined();
  });

  it("a worker that cannot start (PORT taken) stops the rest: one line from it, one from the primary, exit 1, PostgreSQL stopped", async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
    try {
      const port = (taken.address() as AddressInfo).port;
      const result = await runCli(["start", "--workers", "2"], { REHOOK_DATA_DIR: dataDir, PORT: String(port), HOST: "127.0.0.1" });
      expect(result.code).toBe(1);
      const lines = result.stderr.trim().split("\n");
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(/^rehook: .*EADDRINUSE/);
      expect(lines[1]).toBe("rehook: a worker exited while starting (code 1); its error is above");
      expect(await postmasterPid(dataDir)).toBeUndefined();
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  }, 60_000);

  it("runs 2 workers on one port, both answering captures that are stored; one listening line", async () => {
    // debug: the access lines of captures, each naming its worker.
    server = await startRehook({ REHOOK_DATA_DIR: dataDir, LOG_LEVEL: "debug", SHUTDOWN_DRAIN_MS: "200" }, { args: ["--workers", "2"] });
    expect(server.log().match(/listening on http:\/\//g)).toHaveLength(1);
    const workers = listeningWorkers();
    expect(new Set(workers).size).toBe(2);
    expect(workers.every(isProcessAlive)).toBe(true);
    expect(workers).not.toContain(server.child.pid);

    const user = await runCli(["user", "create", "--email", "workers@example.com", "--password", "long enough"], { REHOOK_DATA_DIR: dataDir });
    expect(user.code).toBe(0);
    const endpoint = await runCli(["endpoint", "create", "--email", "workers@example.com", "--name", "w"], { REHOOK_DATA_DIR: dataDir });
    const created = JSON.parse(endpoint.stdout) as { id: string; slug: string };
    slug = created.slug;

    await captureUntilServedBy(workers);
    // Rows, read through the same embedded server (this process leaves it again at once).
    const database = await startEmbeddedPostgres({ dataDir });
    const pool = createPool({ databaseUrl: database.url, max: 1, onError: () => undefined });
    try {
      const rows = await pool.query<{ n: string }>("select count(*) as n from events where endpoint_id = $1", [created.id]);
      expect(Number(rows.rows[0]!.n)).toBe(stored);
    } finally {
      await pool.end();
      await database.stop();
    }
  }, 90_000);

  it("replaces a worker that was killed, and keeps answering", async () => {
    const [victim, survivor] = listeningWorkers() as [number, number];
    process.kill(victim, "SIGKILL");
    await waitFor(() => server!.log().includes(`worker ${victim} exited (signal SIGKILL); starting another`), "the primary to notice the crash");
    // Answered by the survivor meanwhile.
    expect(await captureOnNewConnection()).toBe(200);
    await waitFor(() => listeningWorkers().length === 3, "a replacement to listen");
    const replacement = listeningWorkers()[2]!;
    expect([victim, survivor]).not.toContain(replacement);
    await captureUntilServedBy([survivor, replacement]);
  }, 60_000);

  it("SIGTERM: the workers drain and exit, then PostgreSQL stops, then the primary exits 0", async () => {
    const postgres = await postmasterPid(dataDir);
    expect(postgres).toBeDefined();
    const workers = listeningWorkers().slice(1);
    const exit = exited(server!.child);
    server!.child.kill("SIGTERM");
    expect(await exit).toBe(0);
    expect(workers.some(isProcessAlive)).toBe(false);
    expect(isProcessAlive(postgres!)).toBe(false);
    expect(server!.log()).toMatch(/draining for 200 ms .* worker=\d+/);
  }, 60_000);
});
