import { execFile, spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { readdirSync, readFileSync } from "node:fs";

export interface Started {
  child: ChildProcess;
  url: string;
}

/** Spawns a node script and resolves once it prints "listening on <url>". */
export function startListening(script: string, args: string[], env: Record<string, string>, nodeArgs: string[] = []): Promise<Started> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, script, ...args], { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/i.exec(output);
      if (!match) return;
      resolve({ child, url: match[1]! });
      // Captures are logged at info: past the start line, the output is read and dropped, not kept.
      for (const stream of [child.stdout!, child.stderr!]) {
        stream.off("data", onData);
        stream.resume();
      }
    };
    child.stdout!.on("data", onData);
    child.stderr!.on("data", onData);
    child.on("exit", (code) => reject(new Error(`${script} exited (${code}): ${output}`)));
  });
}

export function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once("exit", () => resolve());
    child.kill("SIGTERM");
  });
}

/** Peak resident set size of a process so far, from /proc (Linux), in MiB. */
export function peakRssMiB(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const kb = Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1]);
    return Number.isFinite(kb) ? Math.round(kb / 1024) : undefined;
  } catch {
    return undefined;
  }
}

/** The pids whose parent is `pid`, from /proc (Linux): `rehook start --workers N`'s workers. */
export function childPids(pid: number): number[] {
  const children: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid) children.push(Number(name));
    } catch {
      // exited meanwhile
    }
  }
  return children;
}

/** The built `rehook` command. */
export const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../apps/cli/bin/rehook.cjs");

/** Runs a `rehook` command (this checkout's, or another build's `cli`) to completion and returns its stdout. */
export function runRehook(args: string[], env: Record<string, string>, cli = CLI): Promise<string> {
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [cli, ...args], { env: { ...process.env, ...env } }, (error, stdout, stderr) =>
      error ? reject(new Error(stderr || error.message)) : resolve(stdout),
    ),
  );
}
