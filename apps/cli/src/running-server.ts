import { readFileSync } from "node:fs";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { SIGNUP_MODES, type Config, type Logger } from "@rehook/core";
import { z } from "zod";
import { databaseInUse } from "./database-in-use.js";

/**
 * What `rehook start` tells the other commands about itself, in `<data dir>/server.json`: the
 * settings that change what they print or accept (the URLs in webhook_url and invite links,
 * whether loopback destinations are allowed, the default retention shown as kept_for_days) and
 * where it listens (`rehook listen`'s default server). Written once it listens, removed when it
 * stops; a record whose process is gone (a crash, a kill) is ignored.
 */
const runningServerSchema = z.object({
  pid: z.number().int().positive(),
  /** Where it listens, as reachable from this machine (0.0.0.0 is shown as 127.0.0.1). */
  url: z.url(),
  /** BASE_URL, else its listening address. */
  base_url: z.url(),
  /** CAPTURE_BASE_URL, else base_url. */
  capture_base_url: z.url(),
  allow_private_destinations: z.boolean(),
  retention_days: z.number().int().min(0),
  /** SIGNUP (absent in records of earlier versions): whether `rehook invite create`'s link can create accounts. */
  signup: z.enum(SIGNUP_MODES).optional(),
  /** Which database it serves (see databaseInUse): another database's server says nothing about this one. */
  database: z.string(),
  started_at: z.iso.datetime(),
});

export type RunningServer = z.infer<typeof runningServerSchema>;

export const runningServerFile = (dataDir: string) => path.join(dataDir, "server.json");

/** The record of a server that listens at `url` with `config`. */
export function runningServerRecord(config: Config, url: string, database: string, pid: number, startedAt: Date): RunningServer {
  // Without BASE_URL the configured one is a guess (localhost on PORT, wrong with PORT=0); the bound address is not.
  const baseUrl = config.baseUrlIsDefault ? url : config.baseUrl;
  return {
    pid,
    url,
    base_url: baseUrl,
    // Unset CAPTURE_BASE_URL is base_url (a set one never is: it must name another host).
    capture_base_url: config.captureBaseUrl === config.baseUrl ? baseUrl : config.captureBaseUrl,
    allow_private_destinations: config.allowPrivateDestinations,
    retention_days: config.retentionDays,
    signup: config.signup,
    database,
    started_at: startedAt.toISOString(),
  };
}

/** Writes the record whole (a reader never sees half of it): to a file of its own, then renamed over the old one. */
export async function writeRunningServer(dataDir: string, record: RunningServer): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  const file = runningServerFile(dataDir);
  const staging = `${file}.${record.pid}.tmp`;
  await writeFile(staging, `${JSON.stringify(record, null, 2)}\n`, { mode: 0o644 });
  await rename(staging, file);
}

/** Removes the record if it is still this process's (another server on the same data directory may have written its own since). */
export async function removeRunningServer(dataDir: string, pid: number): Promise<void> {
  const file = runningServerFile(dataDir);
  const text = await readFile(file, "utf8").catch(() => undefined);
  if (text !== undefined && parseRecord(text)?.pid === pid) await rm(file, { force: true });
}

function parseRecord(text: string): RunningServer | undefined {
  try {
    const parsed = runningServerSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * The server running on this data directory and database, if there is one. Synchronous: it is
 * one small file, read while a command sets itself up.
 */
export function readRunningServer(dataDir: string, database: string): RunningServer | undefined {
  let text: string;
  try {
    text = readFileSync(runningServerFile(dataDir), "utf8");
  } catch {
    return undefined;
  }
  const record = parseRecord(text);
  if (!record || record.database !== database || !isAlive(record.pid)) return undefined;
  return record;
}

/** The environment variables a running server's record stands in for: set ones still win. */
export const RECORDED_SETTINGS = ["BASE_URL", "CAPTURE_BASE_URL", "ALLOW_PRIVATE_DESTINATIONS", "RETENTION_DAYS", "SIGNUP"] as const;

/**
 * `config` with the running server's settings where the environment does not give its own.
 * The two URLs go together: a BASE_URL given here with the server's CAPTURE_BASE_URL would mix two servers.
 */
export function withServerSettings(config: Config, server: RunningServer, isSet: (name: (typeof RECORDED_SETTINGS)[number]) => boolean): Config {
  return {
    ...config,
    ...(isSet("BASE_URL") || isSet("CAPTURE_BASE_URL") ? {} : { baseUrl: server.base_url, captureBaseUrl: server.capture_base_url }),
    ...(isSet("ALLOW_PRIVATE_DESTINATIONS") ? {} : { allowPrivateDestinations: server.allow_private_destinations }),
    ...(isSet("RETENTION_DAYS") ? {} : { retentionDays: server.retention_days }),
    ...(isSet("SIGNUP") || !server.signup ? {} : { signup: server.signup }),
  };
}

/**
 * `rehook start`'s side: `listening(url)` writes the record (a failure only warns: the server
 * serves without it), `stopped()` removes it once the server has stopped.
 */
export function recordWhileRunning(config: Config, logger: Logger): { listening(url: string): void; stopped(): Promise<void> } {
  let written: Promise<void> | undefined;
  return {
    listening(url) {
      const record = runningServerRecord(config, url, databaseInUse(config), process.pid, new Date());
      written = writeRunningServer(config.dataDir, record).catch((error: unknown) => {
        logger.warn(`could not write ${runningServerFile(config.dataDir)}: ${(error as Error).message}; rehook commands will not know this server's URLs`);
      });
    },
    async stopped() {
      if (!written) return;
      await written;
      await removeRunningServer(config.dataDir, process.pid).catch(() => undefined);
    },
  };
}
