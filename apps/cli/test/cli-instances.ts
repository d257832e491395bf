import type { ChildProcess } from "node:child_process";
import { afterAll, afterEach, beforeAll, expect } from "vitest";
import { createTestDatabase, type TestDatabase } from "@rehook/vitest-config/postgres";
import type { Sink } from "@rehook/vitest-config/sink";
import { exited, runCli } from "./run-cli.js";

/** What a test file of several `rehook` processes shares; the fields are set once beforeAll has run. */
export interface CliInstances {
  db: TestDatabase;
  /** The processes' environment: the test database, private destinations allowed, 1 s forward timeout. */
  env: Record<string, string>;
  /** Processes a test started: killed (SIGKILL) after each test. */
  children: ChildProcess[];
  /** A destination a test started: closed after each test. */
  sink: Sink | undefined;
}

/** A database of its own with one user (`email`), and the per-test clean-up of processes and sink. */
export function useCliInstances(email: string): CliInstances {
  const shared: CliInstances = { db: undefined as unknown as TestDatabase, env: {}, children: [], sink: undefined };
  beforeAll(async () => {
    shared.db = await createTestDatabase();
    shared.env = { DATABASE_URL: shared.db.url, ALLOW_PRIVATE_DESTINATIONS: "true", FORWARD_TIMEOUT_MS: "1000" };
    expect((await runCli(["user", "create", "--email", email, "--password", "long enough"], shared.env)).code).toBe(0);
  });
  afterEach(async () => {
    for (const child of shared.children.splice(0)) {
      child.kill("SIGKILL");
      await exited(child);
    }
    await shared.sink?.close();
    shared.sink = undefined;
  });
  afterAll(() => shared.db.drop());
  return shared;
}
