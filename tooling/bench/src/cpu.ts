// CPU time of processes from /proc (Linux): what a measured round cost each side, per event.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";

// Clock ticks per second of /proc's times (USER_HZ); 100 on every common Linux.
const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

interface ProcStat {
  ppid: number;
  /** utime + stime of the process (all its threads), in ticks. */
  own: number;
  /** cutime + cstime: of its children that exited and were reaped, in ticks. */
  reaped: number;
}

function readStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined; // exited meanwhile
  }
  // The command name (field 2) may hold spaces and parentheses: fields start after its last ")".
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  const at = (field: number) => Number(fields[field - 3]);
  return { ppid: at(4), own: at(14) + at(15), reaped: at(16) + at(17) };
}

const toMicros = (ticks: number) => (ticks * 1_000_000) / TICKS_PER_SECOND;

/** CPU a process has used so far, all its threads (worker threads included), in microseconds. */
export function processCpuMicros(pid: number): number {
  return toMicros(readStat(pid)?.own ?? 0);
}

/**
 * CPU a process and its children have used so far, in microseconds: PostgreSQL's postmaster,
 * its backends and background workers. Children that exited count through the parent's
 * reaped times, so a backend that closed during a round is not lost.
 */
export function processTreeCpuMicros(rootPid: number): number {
  const root = readStat(rootPid);
  if (!root) return 0;
  let ticks = root.own + root.reaped;
  for (const name of readdirSync("/proc")) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || pid === rootPid) continue;
    const stat = readStat(pid);
    if (stat?.ppid === rootPid) ticks += stat.own;
  }
  return toMicros(ticks);
}

/** The postmaster's pid of a data directory (first line of postmaster.pid). */
export function postmasterPid(dataDirectory: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(path.join(dataDirectory, "postmaster.pid"), "utf8").split("\n", 1)[0]!, 10);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Measures what fn costs a set of CPU readers, as microseconds each. */
export async function cpuDuring<T>(readers: Record<string, () => number>, fn: () => Promise<T>): Promise<{ result: T; micros: Record<string, number> }> {
  const before = Object.fromEntries(Object.entries(readers).map(([name, read]) => [name, read()]));
  const result = await fn();
  const micros = Object.fromEntries(Object.entries(readers).map(([name, read]) => [name, read() - before[name]!]));
  return { result, micros };
}
