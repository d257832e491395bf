import { test as base } from "vitest";
import { createTestDatabase, type TestDatabase } from "./postgres.js";

/**
 * Fixtures shared by the database test files. Extend `test` in a file (or in a shared
 * helper) for more: `test.extend<{ orm: Orm }>({ orm: [async ({ database }, use) => …, { scope: "file" }] })`.
 * A fixture is set up only when a test (or another fixture) names it in its context.
 */
export interface DatabaseFixtures {
  /**
   * A migrated database of the file's own, cloned from the run's template: created when the
   * file's first test asks for it, dropped after its last. File-scoped because cloning costs
   * a `create database` (tens of milliseconds); tests of one file share its rows, as they did
   * with beforeAll/afterAll.
   */
  database: TestDatabase;
}

export const test = base.extend<DatabaseFixtures>({
  database: [
    // vitest reads a fixture's dependencies from its first parameter's destructuring: none here.
    async ({}, use) => {
      const database = await createTestDatabase();
      try {
        await use(database);
      } finally {
        await database.drop();
      }
    },
    { scope: "file" },
  ],
});

export const it = test;
