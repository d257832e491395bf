import { readFile, readdir, readlink, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { walk } from "./walk.mjs";

/**
 * Optional peers that pnpm satisfied from the workspace's own devDependencies: Remix and tRPC
 * accept TypeScript as an optional peer for their types, and nothing loads it at run time.
 */
const UNUSED_OPTIONAL_PEERS = ["typescript"]; // unscoped names

/**
 * Removes from a deployed node_modules what the server never runs: the optional peers above
 * (their folders and the links to them) and every .bin folder, whose shims hold the build
 * machine's absolute paths and would be wrong anywhere else. The deployed manifest loses its
 * scripts and devDependencies, and the lockfile goes: both describe the repository, not this.
 * @param {string} appDir the deployed package (holds node_modules)
 * @returns {Promise<number>} how many entries were removed
 */
export async function pruneDeployment(appDir) {
  const store = path.join(appDir, "node_modules", ".pnpm");
  let removed = 0;
  for (const name of await readdir(store)) {
    if (UNUSED_OPTIONAL_PEERS.some((peer) => name.startsWith(`${peer}@`))) {
      await rm(path.join(store, name), { recursive: true, force: true });
      removed++;
    }
  }
  /** @type {string[]} */
  const doomed = [];
  for await (const { path: entry, dirent } of walk(path.join(appDir, "node_modules"))) {
    if (dirent.isDirectory() && dirent.name === ".bin") doomed.push(entry);
    else if (dirent.isSymbolicLink() && UNUSED_OPTIONAL_PEERS.includes(path.basename(entry))) {
      const target = path.resolve(path.dirname(entry), await readlink(entry));
      if (!(await stat(target).then(() => true, () => false))) doomed.push(entry);
    }
  }
  for (const entry of doomed) await rm(entry, { recursive: true, force: true });
  await rm(path.join(appDir, "pnpm-lock.yaml"), { force: true });
  const manifestFile = path.join(appDir, "package.json");
  const { scripts, devDependencies, ...manifest } = JSON.parse(await readFile(manifestFile, "utf8"));
  await writeFile(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
  return removed + doomed.length;
}
