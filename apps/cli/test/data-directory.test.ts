import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postmasterPid, stopPostmaster } from "@rehook/vitest-config/postmaster";
import { createTestDatabase, type TestDatabase } from "@rehook/vitest-config/postgres";
import { runCli } from "./run-cli.js";

/*
 * A database command says which database it uses, and does not make a new embedded one where
 * there is none (a command run from the wrong folder) unless `rehook user create --init` asks.
 */

let emptyDir: string;
let initDir: string;
let db: TestDatabase;


beforeAll(async () => {
  emptyDir = await mkdtemp(path.join(tmpdir(), "rehook-empty-"));
  initDir = await mkdtemp(path.join(tmpdir(), "rehook-init-"));
  db = await createTestDatabase();
});
afterAll(async () => {
  await stopPostmaster(initDir);
  await db.drop();
  for (const dir of [emptyDir, initDir]) await rm(dir, { recursive: true, force: true });
});

const concurrent = { concurrent: true, timeout: 240_000 };

describe("the data directory of a database command", concurrent, () => {
  it("is refused when it holds no database, in one line, and nothing is created there", async () => {
    const env = { REHOOK_DATA_DIR: emptyDir, LOG_LEVEL: "info" };
    const results = await Promise.all([
      runCli(["user", "create", "--email", "new@example.com", "--password", "long enough"], env),
      runCli(["endpoint", "create", "--email", "new@example.com", "--name", "e"], env),
      runCli(["apikey", "create", "--email", "new@example.com"], env),
    ]);
    for (const result of results) {
      expect(result.code).toBe(1);
      expect(result.stdout).toBe("");
      expect(result.stderr.trim().split("\n")).toHaveLength(1);
      expect(result.stderr).toMatch(new RegExp(`^rehook: ${emptyDir} holds no database yet: .*REHOOK_DATA_DIR.*rehook user create --init`));
    }
    expect(await readdir(emptyDir)).toEqual([]);
  });

  it("user create --init makes the database there and names it; later commands use it without --init", async () => {
    const env = { REHOOK_DATA_DIR: initDir, LOG_LEVEL: "info" };
    const created = await runCli(["user", "create", "--email", "first@example.com", "--password", "long enough", "--init"], env);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stderr.split("\n")[0]).toBe(`rehook: data directory ${initDir} (embedded PostgreSQL)`);
    expect(JSON.parse(created.stdout)).toMatchObject({ email: "first@example.com", is_admin: true });

    const key = await runCli(["apikey", "create", "--email", "first@example.com"], env);
    expect(key.code, key.stderr).toBe(0);
    expect(key.stderr.split("\n")[0]).toBe(`rehook: data directory ${initDir} (embedded PostgreSQL)`);
    // The commands started the embedded PostgreSQL for themselves, and stopped it when done.
    expect(await postmasterPid(initDir)).toBeUndefined();
  });

  it("with DATABASE_URL, names its server and database without the password; LOG_LEVEL=warn keeps it quiet", async () => {
    const url = new URL(db.url);
    const [named, quiet] = await Promise.all([
      runCli(["user", "create", "--email", "external@example.com", "--password", "long enough"], { DATABASE_URL: db.url, LOG_LEVEL: "info" }),
      runCli(["user", "create", "--email", "quiet@example.com", "--password", "long enough"], { DATABASE_URL: db.url, LOG_LEVEL: "warn" }),
    ]);
    expect(named.code, named.stderr).toBe(0);
    expect(named.stderr.split("\n")[0]).toBe(`rehook: database ${decodeURIComponent(url.username)}@${url.hostname}:${url.port}${url.pathname} (DATABASE_URL)`);
    if (url.password) expect(named.stderr).not.toContain(decodeURIComponent(url.password));
    expect(quiet.code, quiet.stderr).toBe(0);
    expect(quiet.stderr).toBe("");
  });
});
