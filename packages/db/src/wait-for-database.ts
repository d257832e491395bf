import { setTimeout as delay } from "node:timers/promises";
import pg from "pg";
import { isConnectionError } from "./capture-writer.js";

/** Time as the wait sees it: tests pass one that jumps instead of sleeping. */
export interface WaitClock {
  now(): number;
  sleep(ms: number): Promise<void>;
}

export interface DatabaseWait {
  /** How long to keep trying while the database is down, starting or stopping; 0 tries once. */
  timeoutMs: number;
  log?: (message: string) => void;
  clock?: WaitClock;
}

const realClock: WaitClock = { now: () => Date.now(), sleep: (ms) => delay(ms) };

const FIRST_RETRY_MS = 250;
const MAX_RETRY_MS = 5_000;
/** One attempt's bound: a server that takes the connection but never answers is retried too. */
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * Errors that pass by themselves: the server is not listening yet (refused, or its Unix socket
 * not there yet), is starting up, shutting down or recovering (57P03 cannot_connect_now, 57P01
 * admin_shutdown, 57P02 crash_shutdown), has no connection slot free (53300), or the name or
 * route to it is not there yet (ENOTFOUND: a database container restarting under Compose has
 * no name until it is up again; a mistyped name is therefore also waited for, then reported).
 * A wrong password, a missing database or role, or a bad certificate do not pass by waiting.
 */
const TRANSIENT_CODES = new Set(["ENOENT", "ENOTFOUND", "EHOSTUNREACH", "ENETUNREACH", "EAI_AGAIN", "53300"]);

export function isTransientConnectError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return (typeof code === "string" && TRANSIENT_CODES.has(code)) || isConnectionError(error) || /timeout expired/i.test(String((error as Error)?.message));
}

/** Where the database is, as a log line may say it (never the password). */
export function databaseAddress(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.host || parsed.searchParams.get("host") || "localhost"}${parsed.pathname}`;
  } catch {
    return "the configured address";
  }
}

/** The reason in one line: pg's message, with the code that names it. */
function reason(error: unknown): string {
  const { code, hostname } = (error ?? {}) as { code?: unknown; hostname?: unknown };
  if (code === "ENOTFOUND" && typeof hostname === "string") return `the name ${hostname} is not found (yet)`;
  const message = (error instanceof Error ? error.message : String(error)).split("\n")[0]!.trim() || "no answer";
  return typeof code === "string" && !message.includes(code) ? `${message} (${code})` : message;
}

async function tryConnect(url: string): Promise<unknown> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.query("select 1");
    return undefined;
  } catch (error) {
    return error ?? new Error("could not connect");
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Returns once the database at `url` accepts a connection and answers. While it is down,
 * starting up or shutting down (a restart, a database container started alongside), it tries
 * again with a growing pause (0.25 s, doubling, at most 5 s), logging what it waits for each
 * time the reason changes, for up to `timeoutMs`; then, or at once for an error that waiting
 * does not mend, it throws one line.
 */
export async function waitForDatabase(url: string, wait: DatabaseWait): Promise<void> {
  const clock = wait.clock ?? realClock;
  const where = databaseAddress(url);
  const started = clock.now();
  let pause = FIRST_RETRY_MS;
  let lastReason: string | undefined;
  for (;;) {
    const error = await tryConnect(url);
    if (error === undefined) {
      if (lastReason !== undefined) wait.log?.(`the database at ${where} answers after ${((clock.now() - started) / 1000).toFixed(1)} s`);
      return;
    }
    const why = reason(error);
    if (!isTransientConnectError(error)) throw new Error(`could not connect to the database at ${where}: ${why}`);
    const waited = clock.now() - started;
    if (waited >= wait.timeoutMs) {
      const after = wait.timeoutMs > 0 ? ` after waiting ${Math.round(waited / 1000)} s (DATABASE_WAIT_MS=${wait.timeoutMs})` : "";
      throw new Error(`the database at ${where} is not available${after}: ${why}`);
    }
    if (why !== lastReason) {
      wait.log?.(`waiting for the database at ${where}: ${why}; trying again for up to ${Math.round(wait.timeoutMs / 1000)} s`);
      lastReason = why;
    }
    await clock.sleep(Math.min(pause, wait.timeoutMs - waited));
    pause = Math.min(MAX_RETRY_MS, pause * 2);
  }
}
