import { readFile, realpath, rm } from "node:fs/promises";
import path from "node:path";

/*
 * postmaster.pid outlives a server that was killed, and pids are reused (Linux hands out at most
 * 32768 by default; a busy host cycles through them in minutes). So a pid read from the file is
 * trusted only after checking, where /proc tells, that it is still a postgres serving this very
 * data directory: a signal meant for the database must never reach whatever took its pid.
 */

export interface Postmaster {
  pid: number;
  port: number;
}

/** True while a process with this pid exists (signal 0 checks without signalling). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

const PID_FILE = "postmaster.pid";

const resolved = (dir: string) => realpath(dir).catch(() => path.resolve(dir));

type Holder = "this server" | "another process" | "nobody";

/**
 * Who holds `pid`: postgres with `-D pgData`, another process, or nobody. Where /proc cannot
 * tell (macOS, or a /proc that hides the process), a live pid counts as the server.
 */
async function holderOf(pid: number, pgData: string): Promise<Holder> {
  if (!isAlive(pid)) return "nobody";
  let cmdline: string;
  try {
    cmdline = await readFile(`/proc/${pid}/cmdline`, "utf8");
  } catch (error) {
    // ENOENT on a Linux host means the process ended between the two checks.
    const gone = (error as NodeJS.ErrnoException).code === "ENOENT" && process.platform === "linux";
    return gone ? "nobody" : "this server";
  }
  const args = cmdline.split("\0");
  const dataArg = args.indexOf("-D");
  if (!/postgres$/.test(args[0] ?? "") || dataArg < 0 || !args[dataArg + 1]) return "another process";
  const same = (await resolved(args[dataArg + 1]!)) === (await resolved(pgData));
  return same ? "this server" : "another process";
}

async function readPidFile(pgData: string): Promise<Postmaster | undefined> {
  const text = await readFile(path.join(pgData, PID_FILE), "utf8").catch(() => undefined);
  if (!text) return undefined;
  const lines = text.split("\n");
  const pid = Number.parseInt(lines[0] ?? "", 10);
  const port = Number.parseInt(lines[3] ?? "", 10);
  return Number.isInteger(pid) && pid > 0 && Number.isInteger(port) ? { pid, port } : undefined;
}

/** The server running on `pgData` (postmaster.pid: line 1 is the pid, line 4 the port), if one is. */
export async function runningPostmaster(pgData: string): Promise<Postmaster | undefined> {
  const found = await readPidFile(pgData);
  return found && (await holderOf(found.pid, pgData)) === "this server" ? found : undefined;
}

/**
 * Removes a postmaster.pid left by a server that did not stop cleanly when its pid now belongs
 * to another process: PostgreSQL would take that process for a live server and refuse to start
 * (after a container restart, low pids are handed out again). A dead pid PostgreSQL handles itself.
 * Answers the pid named in the file it removed.
 */
export async function removeStalePidFile(pgData: string): Promise<number | undefined> {
  const found = await readPidFile(pgData);
  if (!found || (await holderOf(found.pid, pgData)) !== "another process") return undefined;
  await rm(path.join(pgData, PID_FILE), { force: true });
  return found.pid;
}
