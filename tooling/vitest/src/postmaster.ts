import path from "node:path";
import { runningPostmaster } from "@rehook/db";
import { isProcessAlive } from "./processes.js";
import { waitFor } from "./wait-for.js";

/**
 * The embedded PostgreSQL a Rehook data directory runs, checked the way the product checks it:
 * a stale postmaster.pid whose pid another process took is not it.
 */
export async function postmasterPid(dataDir: string): Promise<number | undefined> {
  return (await runningPostmaster(path.join(dataDir, "pg")))?.pid;
}

/** Stops that PostgreSQL, if one runs there ("fast" shutdown), and waits until it has gone. */
export async function stopPostmaster(dataDir: string): Promise<void> {
  const pid = await postmasterPid(dataDir);
  if (pid === undefined) return;
  process.kill(pid, "SIGINT");
  await waitFor(() => !isProcessAlive(pid), "the embedded PostgreSQL to stop", 30_000);
}
