import type { EntityManager } from "@mikro-orm/postgresql";
import { SEARCHED_BODY_BYTES } from "@rehook/core";
import { withTransaction, type Pool } from "../pool.js";

/*
 * The search index: a copy of each recent event's searchable text in `event_search`, under a
 * trigram index, written by a background job in batches (never by capture: a trigram index
 * on `events` made batched inserts 12 times slower). `event_search_state` says which ids the
 * copy is complete for: every event with `indexed_from <= id < indexed_through`. Search reads
 * that range through the index and reads the events outside it (the newest seconds, and days
 * older than the index keeps) as before. The text is stored in the forms search compares
 * (core's event-search.ts): the body's first SEARCHED_BODY_BYTES read as Latin-1, or in
 * `encode(…, 'escape')` form when they hold a NUL byte, and the headers' JSON text.
 */

const HEAD = `substring(e.body from 1 for ${SEARCHED_BODY_BYTES})`;
const SEARCHABLE_COLUMNS = `e.id, e.endpoint_id, position('\\x00'::bytea in ${HEAD}) <> 0,
  case when position('\\x00'::bytea in ${HEAD}) = 0 then convert_from(${HEAD}, 'LATIN1') else encode(${HEAD}, 'escape') end,
  e.headers::text`;

/** The id range the index is complete for, or undefined when there is no usable index (no pg_trgm, or the job has not started). */
export interface SearchIndexCoverage {
  from: string;
  through: string;
}

/** Where the index stands, read once per search (one row, and a catalog lookup). */
export async function searchIndexCoverage(em: EntityManager): Promise<SearchIndexCoverage | undefined> {
  const rows = await em
    .getConnection()
    .execute<Array<{ indexed_from: string; indexed_through: string }>>(
      `select indexed_from, indexed_through from event_search_state where to_regclass('event_search_trigrams') is not null`,
    );
  const row = rows[0];
  return row && row.indexed_from < row.indexed_through ? { from: row.indexed_from, through: row.indexed_through } : undefined;
}

/** True when the trigram index exists (pg_trgm was available to the migration). */
export async function searchIndexAvailable(pool: Pool): Promise<boolean> {
  const result = await pool.query<{ ok: boolean }>(`select to_regclass('event_search_trigrams') is not null as ok`);
  return result.rows[0]?.ok ?? false;
}

/**
 * Starts the index at `from` (nothing indexed yet: its first runs fill it from there on),
 * unless it has started already. Answers whether it started now.
 */
export async function startSearchIndex(pool: Pool, from: string): Promise<boolean> {
  const result = await pool.query(`insert into event_search_state (id, indexed_from, indexed_through) values (1, $1, $1) on conflict (id) do nothing`, [from]);
  return result.rowCount === 1;
}

/**
 * Starts the index again at `from`, forgetting what it holds (events written below its range
 * by other means than capture: a restore, a seed, an import).
 */
export async function restartSearchIndex(pool: Pool, from: string): Promise<void> {
  await withTransaction(pool, async (client) => {
    await client.query(`truncate event_search`);
    await client.query(
      `insert into event_search_state (id, indexed_from, indexed_through) values (1, $1, $1)
       on conflict (id) do update set indexed_from = excluded.indexed_from, indexed_through = excluded.indexed_through`,
      [from],
    );
  });
}

export interface IndexBatch {
  /** Events copied by this batch. */
  rows: number;
  /** True when the batch was full: more events below `upTo` may wait. */
  more: boolean;
  /** The range now complete, or undefined when the index has not started. */
  coverage: SearchIndexCoverage | undefined;
}

/**
 * Copies the next events (at most `batchRows`, oldest first) of those after the index's range
 * and before `upTo` into the index, and moves the range's end: to the last id copied when the
 * batch was full (it is read again next time, and skipped), else to `upTo`. One transaction.
 */
export async function indexNextEvents(pool: Pool, upTo: string, batchRows: number): Promise<IndexBatch> {
  if (batchRows < 2) throw new Error("a search index batch needs at least 2 rows to move on");
  return withTransaction(pool, async (client) => {
    const state = await client.query<{ indexed_from: string; indexed_through: string }>(`select indexed_from, indexed_through from event_search_state where id = 1 for update`);
    const current = state.rows[0];
    if (!current) return { rows: 0, more: false, coverage: undefined };
    if (current.indexed_through >= upTo) return { rows: 0, more: false, coverage: { from: current.indexed_from, through: current.indexed_through } };
    const batch = await client.query<{ rows: number; last: string | null }>(
      `with batch as (select ${SEARCHABLE_COLUMNS} from events e where e.id >= $1 and e.id < $2 order by e.id limit $3),
            copied as (insert into event_search (id, endpoint_id, body_escaped, body_text, headers_text) select * from batch on conflict (id) do nothing)
       select count(*)::int as rows, max(id::text) as last from batch`,
      [current.indexed_through, upTo, batchRows],
    );
    const { rows, last } = batch.rows[0]!;
    const more = rows === batchRows;
    const through = more ? last! : upTo;
    await client.query(`update event_search_state set indexed_through = $1 where id = 1`, [through]);
    return { rows, more, coverage: { from: current.indexed_from, through } };
  });
}

/**
 * Lets the index's range start at `horizon` and deletes up to `batchRows` of the rows below
 * it. The range moves first, so no search relies on what is about to go. Answers the rows deleted.
 */
export async function pruneSearchIndex(pool: Pool, horizon: string, batchRows: number): Promise<number> {
  return withTransaction(pool, async (client) => {
    await client.query(`update event_search_state set indexed_from = greatest(indexed_from, $1::uuid), indexed_through = greatest(indexed_through, $1::uuid) where id = 1`, [horizon]);
    const deleted = await client.query(`delete from event_search where id in (select id from event_search where id < $1 order by id limit $2)`, [horizon, batchRows]);
    return deleted.rowCount ?? 0;
  });
}
