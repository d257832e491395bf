import type { IncomingMessage, ServerResponse } from "node:http";
import { sendError, sendJson } from "./respond.js";

const NO_STORE = { "cache-control": "no-store" };

/** GET /healthz: liveness. 200 while the process serves HTTP at all; it checks nothing else. */
export function createHealthHandler() {
  return async function handleHealth(_req: IncomingMessage, res: ServerResponse): Promise<void> {
    sendJson(res, 200, { status: "ok" }, NO_STORE);
  };
}

export interface ReadinessChecks {
  /** True once shutdown has begun: the load balancer must stop sending. */
  isDraining(): boolean;
  isDatabaseReachable(): Promise<boolean>;
  /** Names of the migrations this build has that the database lacks. */
  pendingMigrations(): Promise<string[]>;
}

// Applied migrations change only on deploys: checking them every few seconds is plenty, and
// keeps a probe every second from asking MikroORM's migrator each time.
export const MIGRATIONS_CHECK_CACHE_MS = 10_000;

/**
 * GET /readyz: readiness. 200 {"status":"ready"} when the database answers and every migration
 * is applied; 503 with code draining, unavailable or migrations_pending otherwise.
 */
export function createReadinessHandler(checks: ReadinessChecks, now: () => number = Date.now) {
  let migrationsCheckedAt = -Infinity;
  let pendingCount = 0;
  return async function handleReadiness(_req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (checks.isDraining()) {
      sendError(res, 503, "draining", "The server is shutting down and takes no new work. Send requests to another instance.", NO_STORE);
      return;
    }
    if (!(await checks.isDatabaseReachable())) {
      sendError(res, 503, "unavailable", "The database does not answer.", NO_STORE);
      return;
    }
    // A positive result is cached; a pending one is checked again on the next probe.
    if (pendingCount > 0 || now() - migrationsCheckedAt > MIGRATIONS_CHECK_CACHE_MS) {
      try {
        pendingCount = (await checks.pendingMigrations()).length;
        migrationsCheckedAt = now();
      } catch {
        sendError(res, 503, "unavailable", "The database does not answer.", NO_STORE);
        return;
      }
    }
    if (pendingCount > 0) {
      sendError(res, 503, "migrations_pending", `${pendingCount} database migration(s) are not applied. Run rehook migrate.`, NO_STORE);
      return;
    }
    sendJson(res, 200, { status: "ready" }, NO_STORE);
  };
}
