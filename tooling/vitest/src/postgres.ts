import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";

declare module "vitest" {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
    templateDatabase: string;
  }
}

export interface TestDatabase {
  /** A fresh, migrated database of its own. */
  url: string;
  query<Row extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<Row[]>;
  drop(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.href;
}

/**
 * Clones the migrated template into a new database, so test files never see each other's
 * rows; `migrated: false` gives an empty one instead (tests of the migrations themselves).
 */
export async function createTestDatabase(options: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const adminUrl = inject("adminDatabaseUrl");
  const template = inject("templateDatabase");
  // Unit projects start no PostgreSQL; without this, pg would try its defaults (a local server).
  if (!adminUrl || !template) {
    throw new Error(
      "this test file needs PostgreSQL, but its vitest project does not start it: list it in a database project (vitest.config.ts)",
    );
  }
  const name = `rehook_test_${process.ppid}_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(options.migrated === false ? `create database ${name}` : `create database ${name} template ${template}`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(adminUrl, name);
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  pool.on("error", () => undefined);
  return {
    url,
    async query(sql, params) {
      return (await pool.query(sql, params)).rows;
    },
    async drop() {
      await pool.end();
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`drop database if exists ${name} with (force)`);
      await client.end();
    },
  };
}

/**
 * Gives an existing user a personal team (they own it) with plain SQL, for tests below the
 * use cases that insert their rows by hand: endpoints, keys and settings belong to the team.
 */
export async function insertPersonalTeam(db: Pick<TestDatabase, "query">, userId: string): Promise<string> {
  const slug = `team-${randomBytes(6).toString("hex")}`;
  const [team] = await db.query<{ id: string }>(
    `with team as (insert into teams (id, name, slug, personal_of_id) values (gen_random_uuid(), $1, $1, $2) returning id, personal_of_id)
     insert into team_members (team_id, user_id, role) select id, personal_of_id, 'owner' from team returning team_id as id`,
    [slug, userId],
  );
  return team!.id;
}

/** A user inserted by hand (no password that signs in) with their personal team; answers the team's id. */
export async function insertUserWithTeam(db: Pick<TestDatabase, "query">, email: string): Promise<string> {
  const [user] = await db.query<{ id: string }>("insert into users (id, email, password_hash) values (gen_random_uuid(), $1, 'x') returning id", [email]);
  return insertPersonalTeam(db, user!.id);
}

/**
 * Gives an endpoint inserted by hand a destination with plain SQL (position 0 by default: its
 * first destination, what destination_url reads), named after its URL's host as the use cases
 * name it; answers the destination's id.
 */
export async function insertDestination(
  db: Pick<TestDatabase, "query">,
  endpointId: string,
  url: string,
  options: { position?: number; name?: string } = {},
): Promise<string> {
  const [row] = await db.query<{ id: string }>(
    `insert into destinations (id, endpoint_id, position, name, url, created_at, updated_at)
     values (gen_random_uuid(), $1, $2, $3, $4, now(), now()) returning id`,
    [endpointId, options.position ?? 0, options.name ?? (new URL(url).hostname || "Destination"), url],
  );
  return row!.id;
}
