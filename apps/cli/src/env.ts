import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { loadConfig, type Config } from "@rehook/core";
import type { ClientEnvironment } from "./commands/types.js";

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

/** The settings of client commands (rehook listen). */
export function clientFromEnvironment(): ClientEnvironment {
  return {
    serverUrl: process.env.REHOOK_URL || undefined,
    apiKey: process.env.REHOOK_API_KEY || undefined,
    color: Boolean(process.stdout.isTTY) && !process.env.NO_COLOR,
  };
}
