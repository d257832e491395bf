import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "@rehook/core";
import { databaseInUse, describeDatabaseUrl } from "../src/database-in-use.js";
import { readRunningServer, removeRunningServer, runningServerFile, runningServerRecord, withServerSettings, writeRunningServer } from "../src/running-server.js";
import { exited } from "./run-cli.js";

let dataDir: string;
const STARTED = new Date("2026-01-02T03:04:05.000Z");

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "rehook-record-"));
});
afterAll(() => rm(dataDir, { recursive: true, force: true }));

/** The pid of a process that has exited: no process holds it now (barring reuse in the meantime, which takes a full wrap of pids). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await exited(child);
  return child.pid!;
}

const record = (pid: number, database = "embedded") => runningServerRecord(loadConfig({ PORT: "0" }, dataDir), "http://127.0.0.1:18200", database, pid, STARTED);

describe("the running server's record", () => {
  it("names BASE_URL and CAPTURE_BASE_URL when they are set, else the address it listens on (not localhost:PORT)", () => {
    const bound = runningServerRecord(loadConfig({ PORT: "0", RETENTION_DAYS: "7" }, dataDir), "http://127.0.0.1:18200", "embedded", 42, STARTED);
    expect(bound).toEqual({
      pid: 42,
      url: "http://127.0.0.1:18200",
      base_url: "http://127.0.0.1:18200",
      capture_base_url: "http://127.0.0.1:18200",
      allow_private_destinations: false,
      retention_days: 7,
      signup: "open",
      database: "embedded",
      started_at: "2026-01-02T03:04:05.000Z",
    });
    const configured = loadConfig({ BASE_URL: "https://rehook.example.com/", CAPTURE_BASE_URL: "https://hooks.example.net", ALLOW_PRIVATE_DESTINATIONS: "true" }, dataDir);
    expect(runningServerRecord(configured, "http://127.0.0.1:18200", "embedded", 42, STARTED)).toMatchObject({
      url: "http://127.0.0.1:18200",
      base_url: "https://rehook.example.com",
      capture_base_url: "https://hooks.example.net",
      allow_private_destinations: true,
    });
  });

  it("is read back while its process lives and serves the same database, and ignored otherwise", async () => {
    await writeRunningServer(dataDir, record(process.pid));
    expect(readRunningServer(dataDir, "embedded")).toEqual(record(process.pid));
    // Another database's server says nothing about this one.
    expect(readRunningServer(dataDir, "postgres@127.0.0.1:5432/rehook")).toBeUndefined();

    await writeRunningServer(dataDir, record(await deadPid()));
    expect(readRunningServer(dataDir, "embedded")).toBeUndefined();

    await writeFile(runningServerFile(dataDir), '{"pid": 1, "url": "not a url"');
    expect(readRunningServer(dataDir, "embedded")).toBeUndefined();
    await rm(runningServerFile(dataDir));
    expect(readRunningServer(dataDir, "embedded")).toBeUndefined();
  });

  it("is removed by its own server only", async () => {
    await writeRunningServer(dataDir, record(process.pid));
    await removeRunningServer(dataDir, process.pid + 1);
    expect(JSON.parse(await readFile(runningServerFile(dataDir), "utf8"))).toMatchObject({ pid: process.pid });
    await removeRunningServer(dataDir, process.pid);
    await expect(readFile(runningServerFile(dataDir), "utf8")).rejects.toThrow(/ENOENT/);
  });

  it("stands in for BASE_URL, CAPTURE_BASE_URL, ALLOW_PRIVATE_DESTINATIONS, RETENTION_DAYS and SIGNUP only where the environment sets none", () => {
    const server = { ...record(process.pid), base_url: "https://rehook.example.com", capture_base_url: "https://hooks.example.net", allow_private_destinations: true, retention_days: 7, signup: "closed" as const };
    const config = loadConfig({}, dataDir);
    expect(withServerSettings(config, server, () => false)).toMatchObject({
      baseUrl: "https://rehook.example.com",
      captureBaseUrl: "https://hooks.example.net",
      allowPrivateDestinations: true,
      retentionDays: 7,
      signup: "closed",
    });
    // A record from an earlier version names no SIGNUP: the environment's (default open) stays.
    expect(withServerSettings(config, { ...server, signup: undefined }, () => false).signup).toBe("open");
    const given = loadConfig({ BASE_URL: "https://mine.example.org", RETENTION_DAYS: "30" }, dataDir);
    // The URLs go as a pair: BASE_URL given here keeps this environment's capture URLs too.
    expect(withServerSettings(given, server, (name) => name === "BASE_URL" || name === "RETENTION_DAYS")).toMatchObject({
      baseUrl: "https://mine.example.org",
      captureBaseUrl: "https://mine.example.org",
      allowPrivateDestinations: true,
      retentionDays: 30,
    });
  });
});

describe("the database a command names", () => {
  it("is the embedded one, or DATABASE_URL's server and database without its password or query", () => {
    expect(databaseInUse({ databaseUrl: undefined })).toBe("embedded");
    expect(describeDatabaseUrl("postgres://rehook:s3cret@db.example.com:5433/prod?sslmode=require&password=other")).toBe("rehook@db.example.com:5433/prod");
    expect(describeDatabaseUrl("postgresql:///rehook?host=/var/run/postgresql")).toBe("/var/run/postgresql/rehook");
  });
});
