import { run } from "./run.mjs";

/**
 * Copies the CLI with its production dependencies into `target` (a fresh directory):
 * workspace packages as they would be published (their package.json `files`: dist, and the
 * dashboard's build), everything else from pnpm's store at the lockfile's versions.
 * --offline: the bundle never depends on the network; `pnpm install` has filled the store.
 * inject-workspace-packages: pnpm 10's deploy copies workspace packages only when they are
 * injected (the alternative, --legacy, ignores the lockfile).
 * @param {string} root the repository root
 * @param {string} target
 */
export async function deployCli(root, target) {
  await run(
    "pnpm",
    ["--filter", "@rehook/cli", "deploy", "--prod", "--offline", "--config.inject-workspace-packages=true", target],
    { cwd: root, what: "pnpm deploy" },
  );
}
