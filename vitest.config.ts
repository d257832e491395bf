import { existsSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { configDefaults, defineConfig } from "vitest/config";

const root = path.dirname(fileURLToPath(import.meta.url));

// Tests import our packages from source, so no rebuild is needed between edits.
const workspacePackages = ["core", "db", "auth", "delivery", "services", "api", "http", "server"];
const alias = Object.fromEntries([
  // Before the package's own entry: a subpath would otherwise resolve under its index file.
  ["@rehook/server/logger", path.join(root, "packages/server/src/logger.ts")],
  ...workspacePackages.map((name) => [`@rehook/${name}`, path.join(root, "packages", name, "src/index.ts")]),
  ["@rehook/vitest-config/postgres", path.join(root, "tooling/vitest/src/postgres.ts")],
  ["@rehook/vitest-config/fixtures", path.join(root, "tooling/vitest/src/fixtures.ts")],
  ["@rehook/vitest-config/service-fixtures", path.join(root, "tooling/vitest/src/service-fixtures.ts")],
  ["@rehook/vitest-config/processes", path.join(root, "tooling/vitest/src/processes.ts")],
  ["@rehook/vitest-config/postmaster", path.join(root, "tooling/vitest/src/postmaster.ts")],
  ["@rehook/vitest-config/sink", path.join(root, "tooling/vitest/src/sink.ts")],
  ["@rehook/vitest-config/wait-for", path.join(root, "tooling/vitest/src/wait-for.ts")],
  ["@rehook/vitest-config/prometheus-text", path.join(root, "tooling/vitest/src/prometheus-text.ts")],
]);

/*
 * Two kinds of test file, so that a run pays only for what it runs:
 * - unit: needs no PostgreSQL, no build (dist/) and no process of its own (no child process
 *   that outlives a test, no signals, exit or memory measurements); loopback sockets are fine.
 *   Runs on worker threads (cheap to start) with no global setup.
 * - database/integration: everything else. Runs on forks, and its project's global setup
 *   shares one PostgreSQL and one migrated template across the run (tooling/vitest/src/global-setup.ts);
 *   vitest runs a project's global setup only when the run has files of that project.
 * Rule: each package or app has a project named after it (`--project db` etc. keep working).
 * It is a unit project when the package is in UNIT_PACKAGES; else a database project, which
 * is also where a new test file lands by default (it works there whatever it needs). A database
 * project's unit files may move to `<name>-unit` by being listed in UNIT_FILES. Each file
 * belongs to exactly one project, so `vitest run` runs each once.
 */
const UNIT_PACKAGES = new Set(["core", "auth"]);
const UNIT_FILES: Record<string, string[]> = {
  http: ["capture-answer-failure", "cluster-metrics", "event-body", "export-formats", "lingering-close", "metrics", "origins", "presenters", "stream-backpressure"],
  delivery: ["destination-check", "fair-scheduler", "lookup-concurrency", "send", "stale-connection", "start-slots"],
  services: ["event-body-view", "known-slugs"],
  server: ["smtp-tls"],
  cli: ["pending-records"],
};
const globalSetup = [path.join(root, "tooling/vitest/src/global-setup.ts")];
const unitTest = { pool: "threads" as const };

function projectsOf(name: string, dir: string) {
  const include = [`${dir}/test/**/*.test.ts`, `${dir}/e2e/**/*.test.ts`];
  if (UNIT_PACKAGES.has(name)) return [{ extends: true as const, test: { name, root, include, ...unitTest } }];
  const unitFiles = (UNIT_FILES[name] ?? []).map((file) => `${dir}/test/${file}.test.ts`);
  for (const file of unitFiles) {
    // A stale entry would silently send nothing to `<name>-unit`.
    if (!existsSync(path.join(root, file))) throw new Error(`vitest.config.ts: UNIT_FILES lists ${file}, which does not exist`);
  }
  const database = {
    extends: true as const,
    test: { name, root, include, exclude: [...configDefaults.exclude, ...unitFiles], globalSetup },
  };
  if (unitFiles.length === 0) return [database];
  const unit = { extends: true as const, test: { name: `${name}-unit`, root, include: unitFiles, ...unitTest } };
  return [database, unit];
}

const projects = [
  ...readdirSync(path.join(root, "packages")).flatMap((name) => projectsOf(name, `packages/${name}`)),
  ...readdirSync(path.join(root, "apps")).flatMap((name) => projectsOf(name, `apps/${name}`)),
];

export default defineConfig({
  resolve: { alias },
  test: {
    projects,
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // expect.poll waits for a condition; its 1 s default is shorter than a browser search or a
    // worker round trip takes when the whole suite shares two cores.
    expect: { poll: { timeout: 10_000 } },
    pool: "forks",
    // Two files at a time even on 2 cores (vitest's default is cores − 1): most files wait on
    // PostgreSQL, child processes or a browser, so a second one fills that time (996 s against
    // 1,164 s for the whole run, docs/benchmarks.md).
    maxWorkers: 2,
    // Only unit projects use threads. Their files share one module graph per worker (a file's
    // imports are not evaluated again for each file), which is most of a unit run's time (core:
    // about 8 s instead of 30). So a unit file leaves no state behind: no vi.mock, no fake timers
    // or spies left on, no configure*() calls. vitest reads this at the root only.
    poolOptions: { threads: { isolate: false } },
    reporters: ["default", path.join(root, "tooling/vitest/src/summary-reporter.ts")],
    passWithNoTests: false,
  },
});
