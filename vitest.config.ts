import { readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = path.dirname(fileURLToPath(import.meta.url));

// Tests import our packages from source, so no rebuild is needed between edits.
const workspacePackages = ["core", "db", "auth", "delivery", "services", "api", "http", "server"];
const alias = Object.fromEntries([
  ...workspacePackages.map((name) => [`@rehook/${name}`, path.join(root, "packages", name, "src/index.ts")]),
  ["@rehook/vitest-config/postgres", path.join(root, "tooling/vitest/src/postgres.ts")],
  ["@rehook/vitest-config/processes", path.join(root, "tooling/vitest/src/processes.ts")],
  ["@rehook/vitest-config/sink", path.join(root, "tooling/vitest/src/sink.ts")],
  ["@rehook/vitest-config/wait-for", path.join(root, "tooling/vitest/src/wait-for.ts")],
  ["@rehook/vitest-config/prometheus-text", path.join(root, "tooling/vitest/src/prometheus-text.ts")],
]);

const project = (name: string, dir: string) => ({
  extends: true as const,
  test: { name, root, include: [`${dir}/test/**/*.test.ts`, `${dir}/e2e/**/*.test.ts`] },
});

const projects = [
  ...readdirSync(path.join(root, "packages")).map((name) => project(name, `packages/${name}`)),
  ...readdirSync(path.join(root, "apps")).map((name) => project(name, `apps/${name}`)),
];

export default defineConfig({
  resolve: { alias },
  test: {
    globalSetup: [path.join(root, "tooling/vitest/src/global-setup.ts")],
    projects,
    testTimeout: 30_000,
    hookTimeout: 120_000,
    pool: "forks",
    reporters: ["default", path.join(root, "tooling/vitest/src/summary-reporter.ts")],
    passWithNoTests: false,
  },
});
