import { MikroORM } from "@mikro-orm/postgresql";
import { Migrator } from "@mikro-orm/migrations";
import { entities } from "./entities/index.js";
import { migrationsList } from "./migrations/index.js";
import type { PoolStats } from "@rehook/core";
import { SESSION_SETTINGS_SQL } from "./session-settings.js";

/** The raw connection knex hands its pool's afterCreate (a pg client). */
interface RawConnection {
  query(sql: string, callback: (error: Error | null) => void): void;
}

export type Orm = MikroORM;

export interface OrmOptions {
  databaseUrl: string;
  poolSize?: number;
  debug?: boolean;
}

/** MikroORM for entity work (CRUD, migrations). Hot paths use the raw pool in pool.ts. */
export async function createOrm(options: OrmOptions): Promise<Orm> {
  return MikroORM.init({
    clientUrl: options.databaseUrl,
    entities,
    discovery: { warnWhenNoEntities: true },
    extensions: [Migrator],
    migrations: { migrationsList, transactional: true, allOrNothing: true, snapshot: false, silent: true },
    pool: {
      min: 0,
      max: options.poolSize ?? 5,
      afterCreate: (connection: RawConnection, done: (error: Error | null, connection: RawConnection) => void) =>
        connection.query(SESSION_SETTINGS_SQL, (error) => done(error, connection)),
    },
    driverOptions: { connection: { connectionTimeoutMillis: 5_000 } },
    debug: options.debug ?? false,
    allowGlobalContext: false,
    ensureDatabase: false,
    // The partitions of events are the service's own (partitions.ts), not entities; so is the
    // search index (its trigram index exists only where pg_trgm does: queries/event-search-index.ts).
    schemaGenerator: { skipTables: [/^events_(legacy|default|p\d{8})$/, /^event_search(_state)?$/] },
  });
}

/** Applies every pending migration; returns the names applied. */
export async function migrate(orm: Orm): Promise<string[]> {
  const applied = await orm.getMigrator().up();
  return applied.map((migration) => migration.name);
}

/** Names of the migrations this build knows that the database has not applied yet. */
export async function pendingMigrations(orm: Orm): Promise<string[]> {
  const pending = await orm.getMigrator().getPendingMigrations();
  return pending.map((migration) => migration.name);
}

/** The part of knex's pool (tarn) read for the metrics. */
interface TarnPool {
  max: number;
  numUsed(): number;
  numFree(): number;
  numPendingAcquires(): number;
}

/**
 * MikroORM's own connection pool (knex's, the dashboard's and the API's queries) now, or
 * undefined when knex has none (not opened yet, or already destroyed).
 */
export function ormPoolStats(orm: Orm): PoolStats | undefined {
  const pool = (orm.em.getConnection().getKnex().client as { pool?: TarnPool }).pool;
  if (!pool) return undefined;
  return { inUse: pool.numUsed(), idle: pool.numFree(), waiting: pool.numPendingAcquires(), max: pool.max };
}
