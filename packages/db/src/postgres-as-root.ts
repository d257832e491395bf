import { execFileSync, spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { chmod, chown, constants, copyFile, lstat, mkdir, mkdtemp, readdir, readlink, realpath, rename, rm, rmdir, stat, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { pipeline } from "node:stream/promises";

// PostgreSQL refuses to run as root, so when Rehook is root the server runs as an unprivileged
// user. That user must be able to enter every folder on the way to the binaries and the data:
// a checkout or a release bundle under root's private home (/root is 0700) is out of its reach.
// Root's folders are never opened up; what the user cannot reach is placed in a root-owned
// folder it can enter instead (SERVER_USER_DIR).

/** The user PostgreSQL runs as when Rehook runs as root. */
export interface ServerUser {
  name: string;
  uid: number;
  gid: number;
}

/**
 * Where, when Rehook runs as root, the PostgreSQL files go that the server user cannot reach
 * where they are: a copy of the binaries per PostgreSQL build (`postgresql-<hash>`) and the data
 * of each unreachable data dir (`data-<hash>/pg`, linked from `<data dir>/pg`). Under /var/lib,
 * not /tmp: the data must outlive a reboot, and no other user can create anything on the way.
 */
export const SERVER_USER_DIR = "/var/lib/rehook-postgres";

const firstLine = (error: unknown) => (error instanceof Error ? error.message : String(error)).split("\n")[0]!.trim();
const codeOf = (error: unknown) => (error as NodeJS.ErrnoException).code ?? firstLine(error);

/** The ids of `name`, creating it as a system user when it does not exist. */
export function serverUser(name: string): ServerUser {
  const id = (flag: string) => Number(execFileSync("id", [flag, name], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }).trim());
  const ids = () => ({ name, uid: id("-u"), gid: id("-g") });
  try {
    return ids();
  } catch {
    // Not there yet: create it below.
  }
  try {
    execFileSync("useradd", ["--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin", name], { stdio: ["ignore", "pipe", "pipe"] });
    return ids();
  } catch (error) {
    throw new Error(
      `PostgreSQL does not run as root and there is no user ${name} to run it as (useradd: ${firstLine(error)}): create one (useradd --system ${name}), run Rehook as another user, or set DATABASE_URL`,
    );
  }
}

function exitsZero(command: string, args: string[], user: ServerUser): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { uid: user.uid, gid: user.gid, cwd: "/", stdio: "ignore" });
    child.once("error", () => resolve(false));
    child.once("close", (code) => resolve(code === 0));
  });
}

/**
 * Whether `user` passes every test(1) check (["-x", folder], ["-r", file]) as the kernel
 * decides it for that user: mode bits, ACLs and every folder on the way.
 */
function userPasses(user: ServerUser, checks: Array<[flag: "-x" | "-r", file: string]>): Promise<boolean> {
  const script = 'while [ "$#" -gt 0 ]; do test "$1" "$2" || exit 1; shift 2; done';
  return exitsZero("/bin/sh", ["-c", script, "sh", ...checks.flat()], user);
}

/** `user` can start the installation's programs, and they find their libraries and share/ files. */
async function canRun(installation: string, user: ServerUser): Promise<boolean> {
  const bin = (name: string) => path.join(installation, "bin", name);
  const readable = await userPasses(user, [
    ["-x", bin("postgres")],
    ["-x", bin("initdb")],
    ["-r", path.join(installation, "share", "postgresql", "postgres.bki")],
  ]);
  // --version loads the shared libraries from lib/ as the server will.
  return readable && (await exitsZero(bin("postgres"), ["--version"], user)) && (await exitsZero(bin("initdb"), ["--version"], user));
}

/**
 * A folder of SERVER_USER_DIR's, created when missing. Everything in it is run or read by
 * the server user on root's behalf, so it must be root's alone: a folder (not a link) owned by
 * root that nobody else may write to.
 */
async function rootOwnedDir(dir: string, mode: number): Promise<void> {
  try {
    const created = await mkdir(dir, { recursive: true, mode });
    if (created !== undefined) await chmod(dir, mode); // exactly `mode`, whatever the umask
  } catch (error) {
    throw new Error(`${dir} could not be created (${codeOf(error)})`);
  }
  const info = await lstat(dir);
  if (!info.isDirectory() || info.uid !== 0 || (info.mode & 0o022) !== 0) {
    throw new Error(`${dir} is not a folder owned by root that only root may write to`);
  }
}

/** sha256 of the server binary: one copy per PostgreSQL build, wherever it was installed from. */
async function fingerprint(installation: string): Promise<string> {
  const hash = createHash("sha256");
  await pipeline(createReadStream(path.join(installation, "bin", "postgres")), hash);
  return hash.digest("hex").slice(0, 16);
}

const isInside = (root: string, file: string) => file === root || file.startsWith(root + path.sep);

/**
 * Copies an installation's tree with modes everyone may read (and run, where the original is
 * executable), whatever the umask it was unpacked with. Links are kept as relative links and
 * must stay inside the tree (lib/libpq.so -> libpq.so.5.17).
 */
async function copyTree(root: string, from: string, to: string): Promise<void> {
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) {
      await mkdir(target, { mode: 0o755 });
      await chmod(target, 0o755);
      await copyTree(root, source, target);
    } else if (entry.isFile()) {
      await copyFile(source, target, constants.COPYFILE_FICLONE);
      await chmod(target, (await stat(source)).mode & 0o111 ? 0o755 : 0o644);
    } else if (entry.isSymbolicLink()) {
      const link = await readlink(source);
      if (path.isAbsolute(link) || !isInside(root, path.resolve(from, link))) {
        throw new Error(`${source} links outside the PostgreSQL installation (${link}): reinstall it`);
      }
      await symlink(link, target);
    }
  }
}

/**
 * The installation (the folder with bin/, lib/ and share/) as `user` can run it: where it is
 * when it can, else a root-owned copy in `serverUserDir`, made once per PostgreSQL build.
 * The copy is staged under a random name and renamed into place, so a half-made copy is never
 * used and two processes copying at once both end with a whole one.
 */
export async function installationFor(user: ServerUser, installation: string, serverUserDir: string, log?: (message: string) => void): Promise<string> {
  if (await canRun(installation, user)) return installation;
  const hint = "install Rehook under folders every user may enter, or set DATABASE_URL";
  try {
    await rootOwnedDir(serverUserDir, 0o755);
  } catch (error) {
    throw new Error(`user ${user.name} cannot run PostgreSQL from ${installation}, and ${firstLine(error)}: ${hint}`);
  }
  const copy = path.join(serverUserDir, `postgresql-${await fingerprint(installation)}`);
  const exists = await lstat(copy).then(() => true, () => false);
  if (!exists) {
    log?.(`copying PostgreSQL to ${copy}: user ${user.name} cannot run it from ${installation}`);
    const staging = await mkdtemp(path.join(serverUserDir, ".copy-"));
    try {
      await copyTree(installation, installation, staging);
      await chmod(staging, 0o755);
      await rename(staging, copy).catch((error: NodeJS.ErrnoException) => {
        // Another process put its copy there first: use that one.
        if (!["ENOTEMPTY", "EEXIST"].includes(error.code ?? "")) throw error;
      });
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }
  await rootOwnedDir(copy, 0o755).catch((error: unknown) => {
    throw new Error(`${firstLine(error)}: remove it and start again`);
  });
  if (!(await canRun(copy, user))) {
    throw new Error(`user ${user.name} cannot run PostgreSQL from ${installation} nor from its copy ${copy} (remove the copy to make it again; or is it on a noexec mount?): ${hint}`);
  }
  return copy;
}

/** `dir/pg`, or where it links to (see dataDirFor), without changing anything. */
export async function linkedDataDir(dir: string): Promise<string> {
  const link = path.join(dir, "pg");
  if (!(await lstat(link).then((info) => info.isSymbolicLink(), () => false))) return link;
  const target = await realpath(link).catch(() => undefined);
  if (!target) throw new Error(`${link} links to ${await readlink(link)}, which is missing: restore it, or remove the link to start with an empty database`);
  return target;
}

async function hasCluster(pgData: string): Promise<boolean> {
  return stat(path.join(pgData, "PG_VERSION")).then(() => true, () => false);
}

/**
 * Where PostgreSQL keeps the data of Rehook's data dir `dir`: `dir/pg`, or wherever `dir/pg`
 * links to. When Rehook is root and the server user cannot enter `dir` (a checkout under a
 * private home), the data goes to `serverUserDir/data-<hash of dir>/pg`, owned by that user
 * with mode 0700, and `dir/pg` becomes a link to it: every later start, and root's own reads,
 * follow the link, so the data stays the same when the checkout is moved. An empty `dir/pg`
 * left by a start that failed goes; a database there moves along (same file system only).
 */
export async function dataDirFor(user: ServerUser | undefined, dir: string, serverUserDir: string, log?: (message: string) => void): Promise<string> {
  const link = path.join(dir, "pg");
  const found = await lstat(link).catch(() => undefined);
  if (found?.isSymbolicLink()) {
    const target = await linkedDataDir(dir);
    log?.(`embedded PostgreSQL's data is in ${target} (linked from ${link})`);
    return target;
  }
  if (!user) return link;
  if (await userPasses(user, [["-x", path.dirname(dir)]])) {
    // The server must be able to enter our folder (not list it).
    await chmod(dir, ((await stat(dir)).mode & 0o777) | 0o711);
    return link;
  }

  const hint = `set REHOOK_DATA_DIR to a folder whose parents every user may enter (such as /var/lib/rehook), or set DATABASE_URL`;
  const home = path.join(serverUserDir, `data-${createHash("sha256").update(await realpath(dir)).digest("hex").slice(0, 16)}`);
  try {
    await rootOwnedDir(serverUserDir, 0o755);
    await rootOwnedDir(home, 0o711);
  } catch (error) {
    throw new Error(`user ${user.name} cannot enter ${dir}, and ${firstLine(error)}: ${hint}`);
  }
  await writeFile(path.join(home, "data-dir"), `${dir}\n`); // whose data this is, for a person looking
  const target = path.join(home, "pg");
  if (found?.isDirectory()) {
    if (await hasCluster(link)) {
      await rename(link, target).catch((error: unknown) => {
        throw new Error(`user ${user.name} cannot enter ${dir} and its database could not be moved to ${target} (${codeOf(error)}): move ${link} there yourself, or ${hint}`);
      });
    } else {
      await rmdir(link).catch(() => {
        throw new Error(`${link} holds files but no database, and user ${user.name} cannot enter it: remove it, or ${hint}`);
      });
    }
  }
  await mkdir(target, { recursive: true, mode: 0o700 });
  await chown(target, user.uid, user.gid);
  await chmod(target, 0o700);
  await symlink(target, link);
  log?.(`embedded PostgreSQL's data is in ${target} (linked from ${link}): user ${user.name}, which runs it, cannot enter ${dir}`);
  return target;
}
