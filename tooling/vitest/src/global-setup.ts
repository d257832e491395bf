import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { createOrm, migrate, startEmbeddedPostgres, type EmbeddedDatabase } from "@rehook/db";

// Type-only: brings in the ProvidedContext declaration without loading vitest here.
import type {} from "./postgres.js";

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.href;
}

interface Server {
  adminUrl: string;
  templateDatabase: string;
  stop(): Promise<void>;
}

/**
 * One PostgreSQL for the whole run: TEST_DATABASE_URL when given, else an embedded server
 * in a temporary folder. A template database is migrated once; each test file clones it.
 */
async function startServer(): Promise<Server> {
  let embedded: EmbeddedDatabase | undefined;
  let dataDir: string | undefined;
  let adminUrl = process.env.TEST_DATABASE_URL;
  const templateDatabase = `rehook_template_${process.pid}_${Date.now()}`;

  const stop = async () => {
    if (adminUrl) {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      const leftovers = await client.query<{ datname: string }>(
        "select datname from pg_database where datname like $1 or datname = $2",
        [`rehook_test_${process.pid}_%`, templateDatabase],
      );
      for (const { datname } of leftovers.rows) await client.query(`drop database if exists ${datname} with (force)`);
      await client.end();
    }
    await embedded?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  };

  try {
    if (!adminUrl) {
      dataDir = await mkdtemp(path.join(tmpdir(), "rehook-test-pg-"));
      embedded = await startEmbeddedPostgres({ dataDir, databaseName: "postgres" });
      adminUrl = embedded.url;
    }
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`create database ${templateDatabase}`);
    await admin.end();

    const orm = await createOrm({ databaseUrl: withDatabase(adminUrl, templateDatabase), poolSize: 1 });
    await migrate(orm);
    await orm.close(true);
  } catch (error) {
    // A half-started server must not outlive the failed run.
    await stop().catch(() => undefined);
    throw error;
  }
  return { adminUrl, templateDatabase, stop };
}

/**
 * The server shared by every database project of the run. vitest loads this file once per
 * project that lists it (each project has its own module graph), so module state would not be
 * shared: the process-wide registry is. The last project's teardown stops the server.
 */
interface Shared {
  server?: Promise<Server>;
  users: number;
}
const registry = globalThis as typeof globalThis & { [key: symbol]: Shared | undefined };
const KEY = Symbol.for("rehook.vitest.postgres");

/**
 * Global setup of the projects whose tests need PostgreSQL (see vitest.config.ts). vitest runs a
 * project's global setup only when the run has test files of that project, so a run of unit
 * projects alone never starts PostgreSQL.
 */
export default async function setup(project: TestProject) {
  const shared = (registry[KEY] ??= { users: 0 });
  shared.users += 1;
  shared.server ??= startServer();
  let server: Server;
  try {
    server = await shared.server;
  } catch (error) {
    release(shared);
    throw error;
  }
  project.provide("adminDatabaseUrl", server.adminUrl);
  project.provide("templateDatabase", server.templateDatabase);
  return async () => {
    const last = release(shared);
    if (last) await server.stop();
  };
}

/** Drops one user; true when it was the last (the registry is then empty for the next run). */
function release(shared: Shared): boolean {
  shared.users -= 1;
  if (shared.users > 0) return false;
  shared.server = undefined;
  return true;
}
