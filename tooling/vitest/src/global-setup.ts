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

/**
 * One PostgreSQL for the whole run: TEST_DATABASE_URL when given, else an embedded server
 * in a temporary folder. A template database is migrated once; each test file clones it.
 */
export default async function setup(project: TestProject) {
  let embedded: EmbeddedDatabase | undefined;
  let dataDir: string | undefined;
  let adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    dataDir = await mkdtemp(path.join(tmpdir(), "rehook-test-pg-"));
    embedded = await startEmbeddedPostgres({ dataDir, databaseName: "postgres" });
    adminUrl = embedded.url;
  }
  const templateDatabase = `rehook_template_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${templateDatabase}`);
  await admin.end();

  const orm = await createOrm({ databaseUrl: withDatabase(adminUrl, templateDatabase), poolSize: 1 });
  await migrate(orm);
  await orm.close(true);

  project.provide("adminDatabaseUrl", adminUrl);
  project.provide("templateDatabase", templateDatabase);

  return async () => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    const leftovers = await client.query<{ datname: string }>(
      "select datname from pg_database where datname like $1 or datname = $2",
      [`rehook_test_${process.pid}_%`, templateDatabase],
    );
    for (const { datname } of leftovers.rows) await client.query(`drop database if exists ${datname} with (force)`);
    await client.end();
    await embedded?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  };
}
