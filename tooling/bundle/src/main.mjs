#!/usr/bin/env node
// `pnpm bundle`: the release bundle dist/rehook-<version>.tgz, holding the built server,
// dashboard and CLI with production dependencies only. Expects everything built (pnpm bundle
// runs turbo first). Usage: main.mjs [--out <dir>]. The last line of stdout is the file's path.
import { access, mkdir, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { archive } from "./archive.mjs";
import { deployCli } from "./deploy.mjs";
import { writeLayout } from "./layout.mjs";
import { preparePostgres } from "./postgres-binaries.mjs";
import { pruneDeployment } from "./prune.mjs";
import { BundleError } from "./run.mjs";
import { verifyBundle } from "./verify.mjs";

const root = fileURLToPath(new URL("../../../", import.meta.url));

/** @param {string[]} argv */
function outDir(argv) {
  if (argv.length === 0) return path.join(root, "dist");
  if (argv.length === 2 && argv[0] === "--out" && argv[1]) return path.resolve(argv[1]);
  throw new BundleError(`unexpected arguments "${argv.join(" ")}"; usage: bundle [--out <dir>]`);
}

/** The release's version: the CLI's (what `rehook --version` prints). */
async function releaseVersion() {
  const manifest = JSON.parse(await readFile(path.join(root, "apps/cli/package.json"), "utf8"));
  return /** @type {string} */ (manifest.version);
}

async function requireBuilt() {
  for (const file of ["apps/cli/dist/main.js", "apps/web/build/server/index.js"]) {
    await access(path.join(root, file)).catch(() => {
      throw new BundleError(`${file} is missing: run pnpm bundle (it builds first) or pnpm build`);
    });
  }
}

/** @param {number} bytes */
const mib = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** @param {string[]} argv */
async function main(argv) {
  const out = outDir(argv);
  await requireBuilt();
  const version = await releaseVersion();
  const name = `rehook-${version}`;
  const file = path.join(out, `${name}.tgz`);
  // Staged outside the repository: a folder inside the workspace would look like part of it to pnpm.
  const staging = await mkdtemp(path.join(tmpdir(), "rehook-bundle-"));
  try {
    const top = path.join(staging, name);
    console.log(`bundle: deploying @rehook/cli with production dependencies`);
    await deployCli(root, path.join(top, "app"));
    await pruneDeployment(path.join(top, "app"));
    await preparePostgres(path.join(top, "app"));
    await writeLayout(top, version);
    await verifyBundle(top);
    await mkdir(out, { recursive: true });
    console.log(`bundle: packing ${name}/`);
    await archive(staging, name, file);
    console.log(`bundle: ${mib((await stat(file)).size)}`);
    console.log(file);
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
}

main(process.argv.slice(2)).catch((error) => {
  const message = error instanceof BundleError ? error.message : error instanceof Error ? error.message : String(error);
  process.stderr.write(`bundle: ${message.split("\n")[0]}\n`);
  process.exitCode = 1;
});
