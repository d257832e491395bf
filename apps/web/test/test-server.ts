import { fileURLToPath } from "node:url";
import { loadConfig, silentLogger } from "@rehook/core";
import { createEndpoint, createUser, type EndpointView } from "@rehook/services";
import { startServer, type RehookServer } from "@rehook/server";
import { createTestDatabase, type TestDatabase } from "@rehook/vitest-config/postgres";

/** The dashboard this app builds (pnpm build), served by the test servers as the CLI serves it. */
export const DASHBOARD_BUILD = fileURLToPath(new URL("../build/", import.meta.url));

export interface TestServer {
  rehook: RehookServer;
  db: TestDatabase;
  userId: string;
  createEndpoint(name: string, destinationUrl?: string | null): Promise<EndpointView>;
  close(): Promise<void>;
}

/** A real Rehook server on a free loopback port, on a database of its own. */
export async function startTestServer(env: Record<string, string> = {}, db?: TestDatabase): Promise<TestServer> {
  const database = db ?? (await createTestDatabase());
  const config = loadConfig({ PORT: "0", HOST: "127.0.0.1", DATABASE_URL: database.url, LOG_LEVEL: "silent", ...env }, "/unused");
  const rehook = await startServer(config, silentLogger, { dashboardBuild: DASHBOARD_BUILD });
  const ctx = { orm: rehook.database.orm, baseUrl: rehook.url, addressPolicy: { allowPrivate: config.allowPrivateDestinations }, retentionDays: config.retentionDays };
  const user = await createUser(ctx, { email: `owner-${Date.now()}-${Math.random()}@example.com`, password: "correct horse" });
  return {
    rehook,
    db: database,
    userId: user.id,
    createEndpoint: (name, destinationUrl = null) => createEndpoint(ctx, { userId: user.id, name, destinationUrl }),
    async close() {
      await rehook.close();
      if (!db) await database.drop();
    },
  };
}
