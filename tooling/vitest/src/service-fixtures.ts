import { randomBytes } from "node:crypto";
import { hashPassword } from "@rehook/auth";
import { loadConfig, silentLogger, uuidv7, type Config } from "@rehook/core";
import { insertUser } from "@rehook/db";
import { openInfrastructure } from "@rehook/server";
import { createApiKey, insertTeamNamed, type Actor, type Services, type UserView } from "@rehook/services";
import { test as databaseTest } from "./fixtures.js";

/**
 * The service graph as the server builds it, on the file's own database, with no HTTP server:
 * use cases, tRPC callers and API routes are tested through it directly.
 */
export interface FixtureUser extends UserView {
  teamId: string;
  actor: Actor;
}

export interface ServiceFixtures {
  /** The configuration the graph was built from (loopback destinations allowed, logs off). */
  config: Config;
  /** The complete graph (`createServices`), with its delivery workers, job runner and bus running. File-scoped. */
  services: Services;
  /**
   * A user of the test's own (a fresh one per test, so tests never see each other's rows); its
   * password is PASSWORD. `teamId` is their personal team (they own it), `actor` them in it.
   */
  user: FixtureUser;
  /** An API key of `user`'s personal team, role developer: the key itself (shown once) and its id. */
  apiKey: { key: string; id: string };
}

/** The fixture users' password (log in with it where a test needs a session from the login path). */
export const PASSWORD = "correct horse battery";

// One hash for every fixture user of a run: a password hash costs about 0.4 s at the
// production cost, which per test would be most of a fast test's time. createUser's own
// hashing is tested in packages/services.
let passwordHash: Promise<string> | undefined;

/** The fixtures' configuration on a database (loopback destinations allowed, logs off), with `env` on top. */
export function serviceConfig(databaseUrl: string, env: Record<string, string> = {}): Config {
  return loadConfig({ DATABASE_URL: databaseUrl, LOG_LEVEL: "silent", ALLOW_PRIVATE_DESTINATIONS: "true", BASE_URL: "http://rehook.test", ...env }, "/unused");
}

/** Runs `use` with the complete service graph of `config` running (on the clock `now`, when given), and releases it after. */
export async function withServiceGraph(config: Config, use: (services: Services) => Promise<void>, options: { now?: () => number } = {}): Promise<void> {
  const infra = await openInfrastructure(config, silentLogger, { processes: 1, ...options });
  try {
    await use(infra.services);
  } finally {
    await infra.release();
  }
}

export const test = databaseTest.extend<ServiceFixtures>({
  config: [
    async ({ database }, use) => {
      await use(serviceConfig(database.url));
    },
    { scope: "file" },
  ],
  services: [
    async ({ config }, use) => {
      await withServiceGraph(config, use);
    },
    { scope: "file" },
  ],
  user: async ({ services }, use) => {
    passwordHash ??= hashPassword(PASSWORD);
    const email = `user-${randomBytes(6).toString("hex")}@example.com`;
    const em = services.orm.em.fork();
    const user = await insertUser(em, { id: uuidv7(), email, passwordHash: await passwordHash });
    const team = await insertTeamNamed(em, { name: email, ownerId: user.id, personal: true });
    await use({ id: user.id, email: user.email, isAdmin: user.isAdmin, teamId: team.id, actor: { userId: user.id, teamId: team.id, role: "owner" } });
  },
  apiKey: async ({ services, user }, use) => {
    const { key, apiKey } = await createApiKey(services, user.actor, { name: "test" });
    await use({ key, id: apiKey.id });
  },
});

export const it = test;
