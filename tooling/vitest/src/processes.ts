import { readFileSync } from "node:fs";

/** True while a process with this pid exists (signal 0 checks without signalling). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * The parent of a live process, read from /proc/<pid>/stat (Linux); undefined when the process
 * is gone or /proc cannot tell. A pid remembered from earlier may belong to another process by
 * now, so a test checks parentage before it signals one.
 */
export function parentPid(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read from the last ")".
  const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
  return Number.isInteger(ppid) ? ppid : undefined;
}
