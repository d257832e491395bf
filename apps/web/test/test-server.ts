import { fileURLToPath } from "node:url";
import { loadConfig, silentLogger, type Logger } from "@rehook/core";
import { actorFor, createEndpoint, createUser, type Actor, type EndpointView } from "@rehook/services";
import { startServer, type RehookServer } from "@rehook/server";
import { createTestDatabase, type TestDatabase } from "@rehook/vitest-config/postgres";

/** The dashboard this app builds (pnpm build), served by the test servers as the CLI serves it. */
export const DASHBOARD_BUILD = fileURLToPath(new URL("../build/", import.meta.url));

export interface TestServer {
  rehook: RehookServer;
  db: TestDatabase;
  userId: string;
  /** The user's personal team (they own it): the endpoints createEndpoint makes belong to it. */
  teamId: string;
  /** The user in their personal team, for use cases that take an actor. */
  actor: Actor;
  createEndpoint(name: string, destinationUrl?: string | null): Promise<EndpointView>;
  close(): Promise<void>;
}

/**
 * A real Rehook server on a free loopback port, on a database of its own (`now`: the clock
 * sign-ins are checked by; `logger`: where its log goes, else nowhere).
 */
export async function startTestServer(env: Record<string, string> = {}, db?: TestDatabase, options: { now?: () => number; logger?: Logger } = {}): Promise<TestServer> {
  const database = db ?? (await createTestDatabase());
  const config = loadConfig({ PORT: "0", HOST: "127.0.0.1", DATABASE_URL: database.url, LOG_LEVEL: "silent", ...env }, "/unused");
  const { logger = silentLogger, ...startOptions } = options;
  const rehook = await startServer(config, logger, { dashboardBuild: DASHBOARD_BUILD, ...startOptions });
  const ctx = { orm: rehook.database.orm, baseUrl: rehook.url, addressPolicy: { allowPrivate: config.allowPrivateDestinations }, retentionDays: config.retentionDays };
  const user = await createUser(ctx, { email: `owner-${Date.now()}-${Math.random()}@example.com`, password: "correct horse" });
  const { actor } = await actorFor(ctx, { userId: user.id });
  return {
    rehook,
    db: database,
    userId: user.id,
    teamId: actor.teamId,
    actor,
    createEndpoint: (name, destinationUrl = null) => createEndpoint(ctx, { teamId: actor.teamId, name, destinationUrl }),
    async close() {
      await rehook.close();
      if (!db) await database.drop();
    },
  };
}
