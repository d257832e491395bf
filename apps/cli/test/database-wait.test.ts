import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "@rehook/db";
import { closedPort } from "@rehook/vitest-config/closed-port";
import { waitFor } from "@rehook/vitest-config/wait-for";
import { exited, runCli, startRehook } from "./run-cli.js";

// Issue 41 (3.2): `rehook start` (and every command that opens the database) launched while its
// PostgreSQL restarts waits for it instead of exiting 1 at the first "connection refused".

let pgDir: string;
let dataDir: string;
let postgres: EmbeddedDatabase | undefined;

beforeAll(async () => {
  pgDir = await mkdtemp(path.join(tmpdir(), "rehook-wait-pg-"));
  dataDir = await mkdtemp(path.join(tmpdir(), "rehook-wait-data-"));
});
afterAll(async () => {
  await postgres?.stop();
  for (const dir of [pgDir, dataDir]) await rm(dir, { recursive: true, force: true });
});

describe("a database that is not up yet", { concurrent: true }, () => {
  it("rehook start waits for a PostgreSQL that starts a moment later, saying what it waits for, then serves", { timeout: 120_000 }, async () => {
    const first = await startEmbeddedPostgres({ dataDir: pgDir });
    const url = first.url;
    await first.stop();
    let log = "";
    const starting = startRehook({ DATABASE_URL: url, REHOOK_DATA_DIR: dataDir }, { onLog: (text) => (log += text) });
    await waitFor(() => log.includes("waiting for the database at 127.0.0.1:"), "start to say it waits for the database", 60_000);
    postgres = await startEmbeddedPostgres({ dataDir: pgDir });
    const server = await starting;
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    server.child.kill("SIGINT");
    expect(await exited(server.child)).toBe(0);
    expect(log).not.toContain(new URL(url).password);
  });

  it("with DATABASE_WAIT_MS=0 a refused connection fails at once, with one line and exit 1", { timeout: 60_000 }, async () => {
    const port = await closedPort();
    const result = await runCli(["migrate"], { DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/none`, DATABASE_WAIT_MS: "0", REHOOK_DATA_DIR: dataDir });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split("\n")).toEqual([`rehook: the database at 127.0.0.1:${port}/none is not available: connect ECONNREFUSED 127.0.0.1:${port}`]);
  });
});
