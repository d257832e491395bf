import { readdir, readlink, stat } from "node:fs/promises";
import path from "node:path";
import { BundleError } from "./run.mjs";
import { walk } from "./walk.mjs";

/**
 * Build and test tools of the workspace: none belongs in a bundle. (Checking every
 * devDependency would flag some that production packages need too, such as ajv or @types/node.)
 */
const TOOLS = new Set([
  "typescript", "vite", "vitest", "turbo", "@remix-run/dev", "playwright-core", "esbuild", "rollup",
  "@rehook/tsconfig", "@rehook/vitest-config", "@rehook/lint", "@rehook/bench", "@rehook/bundle",
]);

/**
 * "@remix-run+dev@2.17.5_…" (a folder of node_modules/.pnpm) → "@remix-run/dev".
 * @param {string} folder
 */
function packageNameOf(folder) {
  const scoped = folder.startsWith("@");
  const at = folder.indexOf("@", scoped ? 1 : 0);
  const name = at === -1 ? folder : folder.slice(0, at);
  return scoped ? name.replace("+", "/") : name;
}

/**
 * Checks the finished bundle: no build or test tool, the server and dashboard present,
 * and every symbolic link relative and resolving inside the bundle
 * (pnpm's layout is links; one pointing at the build machine would break on the server).
 * @param {string} top the bundle's top folder
 */
export async function verifyBundle(top) {
  const app = path.join(top, "app");
  const installed = (await readdir(path.join(app, "node_modules", ".pnpm"))).map(packageNameOf);
  const leaked = [...new Set(installed.filter((name) => TOOLS.has(name)))];
  if (leaked.length > 0) throw new BundleError(`development-only packages in the bundle: ${leaked.join(", ")}`);

  for (const required of ["bin/rehook.cjs", "dist/main.js", "node_modules/@rehook/web/build/server/index.js", "node_modules/@rehook/web/build/client"]) {
    await stat(path.join(app, required)).catch(() => {
      throw new BundleError(`the bundle lacks app/${required}: was everything built?`);
    });
  }

  for await (const { path: entry, dirent } of walk(top)) {
    if (!dirent.isSymbolicLink()) continue;
    const link = await readlink(entry);
    const target = path.resolve(path.dirname(entry), link);
    const inside = !path.isAbsolute(link) && (target + path.sep).startsWith(top + path.sep);
    if (!inside || !(await stat(target).then(() => true, () => false))) {
      throw new BundleError(`${path.relative(top, entry)} links to ${link}, which is not in the bundle`);
    }
  }
}
