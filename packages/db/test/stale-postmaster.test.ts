import { spawn, type ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startEmbeddedPostgres, type EmbeddedDatabase } from "../src/embedded-postgres.js";
import { isAlive, runningPostmaster } from "../src/postmaster.js";
import { selectOne } from "./query-once.js";

// postmaster.pid outlives a server that was killed, and its pid may belong to another process
// by the time it is read again. That process must neither be signalled nor taken for the server.

let dataDir: string;
let bystander: ChildProcess;
let database: EmbeddedDatabase | undefined;
const pgData = () => path.join(dataDir, "pg");

/** What a server that died left behind, naming a pid that another process holds now. */
const leaveStalePidFile = (pid: number) =>
  writeFile(path.join(pgData(), "postmaster.pid"), `${pid}\n${pgData()}\n1700000000\n5999\n${pgData()}\n127.0.0.1\n  1234  5678\nready   \n`);

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "rehook-stale-pid-"));
  bystander = spawn(process.execPath, ["-e", "setInterval(() => {}, 60_000)"], { stdio: "ignore" });
  await new Promise((resolve) => bystander.once("spawn", resolve));
});
afterAll(async () => {
  await database?.stop();
  bystander.kill("SIGKILL");
  await rm(dataDir, { recursive: true, force: true });
});

describe("a postmaster.pid naming a pid that another process holds", () => {
  it("is not the server: start removes it and starts one; stop leaves that process alone", { timeout: 120_000 }, async () => {
    const first = await startEmbeddedPostgres({ dataDir });
    const served = await runningPostmaster(pgData());
    expect(served?.pid).toBeGreaterThan(0);
    await first.stop();
    expect(isAlive(served!.pid)).toBe(false);

    await leaveStalePidFile(bystander.pid!);
    expect(await runningPostmaster(pgData())).toBeUndefined();
    const lines: string[] = [];
    database = await startEmbeddedPostgres({ dataDir, log: (line) => lines.push(line) });
    expect(lines).toContain(`removed a stale postmaster.pid naming pid ${bystander.pid}, which another process holds now`);
    expect(await selectOne(database.url)).toBe(1);
    const second = await runningPostmaster(pgData());
    expect(second?.pid).not.toBe(bystander.pid);

    // The server goes away uncleanly while Rehook runs, and its pid is handed to the bystander.
    process.kill(second!.pid, "SIGINT");
    await expect.poll(() => isAlive(second!.pid), { timeout: 30_000 }).toBe(false);
    await leaveStalePidFile(bystander.pid!);
    await database.stop();
    database = undefined;
    expect(bystander.exitCode).toBeNull();
    expect(bystander.signalCode).toBeNull();
    expect(isAlive(bystander.pid!)).toBe(true);
  });
});
