import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig, type Config } from "@rehook/core";
import type { ClientEnvironment } from "./commands/types.js";
import { databaseInUse } from "./database-in-use.js";
import { readRunningServer, withServerSettings } from "./running-server.js";

/** The repository root (the folder with pnpm-workspace.yaml), or the working directory when installed elsewhere. */
function projectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(path.join(dir, "pnpm-workspace.yaml"))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
}

/** The only place that reads process.env. */
export function configFromEnvironment(): Config {
  const config = loadConfig(process.env, path.join(projectRoot(), ".rehook"));
  return { ...config, dataDir: path.resolve(config.dataDir) };
}

/** The server `rehook start` runs on this data directory and database, if any (see running-server.ts). */
const runningServer = (config: Config) => readRunningServer(config.dataDir, databaseInUse(config));

/**
 * The configuration of a command that speaks for the server (the URLs it prints, the destinations
 * it accepts): the running server's settings, except those the environment sets itself.
 */
export function serverConfig(config: Config): Config {
  const server = runningServer(config);
  return server ? withServerSettings(config, server, (name) => Boolean(process.env[name])) : config;
}

/** The settings of client commands (rehook listen). */
export function clientFromEnvironment(): ClientEnvironment {
  return {
    serverUrl: process.env.REHOOK_URL || runningServer(configFromEnvironment())?.url,
    apiKey: process.env.REHOOK_API_KEY || undefined,
    color: Boolean(process.stdout.isTTY) && !process.env.NO_COLOR,
  };
}
