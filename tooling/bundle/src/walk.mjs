import { readdir } from "node:fs/promises";
import path from "node:path";

/**
 * Every entry under `dir`, depth first, without following symbolic links (pnpm's
 * node_modules is mostly links; following them would visit packages many times).
 * @param {string} dir
 * @returns {AsyncGenerator<{ path: string; dirent: import("node:fs").Dirent }>}
 */
export async function* walk(dir) {
  for (const dirent of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, dirent.name);
    yield { path: full, dirent };
    if (dirent.isDirectory()) yield* walk(full);
  }
}
