import path from "node:path";
import { run } from "./run.mjs";

/**
 * tar + gzip of `staging/<name>` into `file`, with `<name>/` the only top-level entry.
 * Symbolic links are stored as links (pnpm's node_modules is made of them), hard links as
 * links. Owner root: files unpacked by root on a server belong to root, not to whoever built.
 * @param {string} staging
 * @param {string} name
 * @param {string} file an absolute path ending in .tgz
 */
export async function archive(staging, name, file) {
  const version = await run("tar", ["--version"]);
  const owner = version.includes("GNU tar") ? ["--owner=0", "--group=0", "--numeric-owner"] : ["--uid", "0", "--gid", "0"];
  await run("tar", ["-czf", path.resolve(file), ...owner, "-C", staging, name], { what: "tar" });
}
