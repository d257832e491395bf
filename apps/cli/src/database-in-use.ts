import { lstat, stat } from "node:fs/promises";
import path from "node:path";
import type { Config } from "@rehook/core";

/** DATABASE_URL as a person may see it: user, host, port and database, never the password or the query (which may hold one). */
export function describeDatabaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return "(unreadable DATABASE_URL)";
  }
  const host = url.hostname || url.searchParams.get("host") || "localhost";
  const user = url.username ? `${decodeURIComponent(url.username)}@` : "";
  return `${user}${host}${url.port ? `:${url.port}` : ""}${url.pathname || "/"}`;
}

/**
 * Which database a command uses, as server.json names it: "embedded" (the data directory's own,
 * which is where server.json lives) or DATABASE_URL's server and database.
 */
export function databaseInUse(config: Pick<Config, "databaseUrl">): string {
  return config.databaseUrl ? describeDatabaseUrl(config.databaseUrl) : "embedded";
}

/** The line a database command starts with on stderr, so that nobody wonders which database it changed. */
export function databaseLine(config: Pick<Config, "databaseUrl" | "dataDir">): string {
  return config.databaseUrl
    ? `rehook: database ${describeDatabaseUrl(config.databaseUrl)} (DATABASE_URL)`
    : `rehook: data directory ${config.dataDir} (embedded PostgreSQL)`;
}

/** Whether the data directory holds an embedded database already (its PostgreSQL data, pg/, is initialised). */
export async function hasEmbeddedDatabase(dataDir: string): Promise<boolean> {
  const data = path.join(dataDir, "pg");
  // pg is a link only once a database was made elsewhere for it (as root); if its target is gone, opening it says so.
  if (await lstat(data).then((info) => info.isSymbolicLink(), () => false)) return true;
  return stat(path.join(data, "PG_VERSION")).then(() => true, () => false);
}
