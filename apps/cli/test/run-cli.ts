import { spawn, type ChildProcess } from "node:child_process";
import { availableParallelism } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../bin/rehook.cjs");

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Only the given variables (a typed ProcessEnv would demand NODE_ENV, which Remix's types declare). */
export function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return env as NodeJS.ProcessEnv;
}

/** Which `rehook` to run (default: the repository's built CLI) and from where. */
export interface Entry {
  entry?: string;
  cwd?: string;
}

/*
 * Each `rehook` process spends over a second of CPU loading its modules, so a file that runs
 * commands concurrently would otherwise start more processes than there are cores and slow
 * every one of them towards its timeout. Commands wait for a slot; the timeout starts with
 * the process.
 */
const cliSlots = Math.max(2, availableParallelism() * 2);
let cliRunning = 0;
const cliQueue: Array<() => void> = [];

async function withCliSlot<T>(run: () => Promise<T>): Promise<T> {
  if (cliRunning >= cliSlots) await new Promise<void>((resolve) => cliQueue.push(resolve));
  else cliRunning += 1;
  try {
    return await run();
  } finally {
    // Hand the slot straight to the next waiter, or free it.
    const next = cliQueue.shift();
    if (next) next();
    else cliRunning -= 1;
  }
}

/** Runs the built `rehook` command as a user would, with only the given environment. */
export function runCli(args: string[], env: Record<string, string>, timeoutMs = 60_000, entry: Entry = {}): Promise<CliResult> {
  return withCliSlot(() => spawnCli(args, env, timeoutMs, entry));
}

function spawnCli(args: string[], env: Record<string, string>, timeoutMs: number, { entry = CLI, cwd }: Entry): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [entry, ...args], {
      cwd,
      env: childEnv({ PATH: process.env.PATH ?? "", LOG_LEVEL: "warn", ...env }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`rehook ${args.join(" ")} did not finish in ${timeoutMs} ms; stderr: ${stderr}`));
    }, timeoutMs);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/**
 * Starts `rehook start` (with `args` after it) and resolves with its URL once it logs that it
 * listens; `log()` is everything it has written to stderr so far.
 */
export function startRehook(
  env: Record<string, string>,
  { entry = CLI, cwd, args = [], onLog }: Entry & { args?: string[]; /** Each piece of stderr as it comes, before it listens too. */ onLog?: (text: string) => void } = {},
): Promise<{ child: ChildProcess; url: string; log: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [entry, "start", ...args], {
      cwd,
      env: childEnv({ PATH: process.env.PATH ?? "", PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", ...env }),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let log = "";
    child.stderr!.on("data", (chunk: Buffer) => {
      log += chunk.toString();
      onLog?.(chunk.toString());
      const match = /listening on (http:\/\/\S+)/.exec(log);
      if (match) resolve({ child, url: match[1]!, log: () => log });
    });
    child.stdout!.resume();
    child.on("exit", (code) => reject(new Error(`rehook start exited (${code}): ${log}`)));
  });
}

export function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(child.exitCode) : child.once("exit", resolve)));
}
