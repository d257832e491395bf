import type { EntityManager } from "@mikro-orm/postgresql";
import { CODED_HEADER_PATTERN, SEARCHED_BODY_BYTES, SEARCHED_CODED_BYTES, searchableBodyOf, type HeaderList, type SearchableBody } from "@rehook/core";
import { withTransaction, type Pool, type PoolClient } from "../pool.js";

/*
 * The search index: a copy of each recent event's searchable text in `event_search`, under a
 * trigram index, written by a background job in batches (never by capture: a trigram index
 * on `events` made batched inserts 12 times slower). `event_search_state` says which ids the
 * copy is complete for: every event with `indexed_from <= id < indexed_through`. Search reads
 * that range through the index and reads the events outside it (the newest seconds, and days
 * older than the index keeps) as before. The text is stored in the forms search compares
 * (core's event-search.ts): the body's first SEARCHED_BODY_BYTES read as Latin-1, or in
 * `encode(…, 'escape')` form when they hold a NUL byte, the headers' JSON text, and the
 * request's `path?query`. A body with a Content-Encoding is stored decoded: those events are
 * read out, formed by core's searchableBodyOf and written by the job itself.
 */

/** Whether the event `e` may have a Content-Encoding (its body is then formed in Node, never by the SQL). */
export const CODED_SQL = `(e.headers::text ilike '${CODED_HEADER_PATTERN}')`;
/**
 * The request text search compares for the event `e`: `path?query`, or the path alone without
 * a query. The "?" is chr(63): the ORM's queries read a literal ? as a placeholder.
 */
export const REQUEST_TEXT_SQL = `(case when e.query = '' then e.path else e.path || chr(63) || e.query end)`;
/** What a coded event's body is formed from: its first bytes, and whether there are more. */
export const CODED_BODY_COLUMNS = `e.id, e.headers, substring(e.body from 1 for ${SEARCHED_CODED_BYTES}) as head, octet_length(e.body) > ${SEARCHED_CODED_BYTES} as partial`;
/** Coded events read per statement: about 8 MiB of compressed heads. */
export const CODED_ROWS_PER_READ = Math.max(1, Math.floor((8 * 1024 * 1024) / SEARCHED_CODED_BYTES));

export interface CodedBodyRow {
  id: string;
  headers: HeaderList | string;
  head: Buffer;
  partial: boolean;
}

/** The searchable body of each coded event read (CODED_BODY_COLUMNS), decoded where its Content-Encoding allows. */
export async function searchableCodedBodies(rows: CodedBodyRow[]): Promise<Array<{ id: string } & SearchableBody>> {
  return Promise.all(
    rows.map(async (row) => {
      const headers = typeof row.headers === "string" ? (JSON.parse(row.headers) as HeaderList) : row.headers;
      return { id: row.id, ...(await searchableBodyOf(row.head, headers, row.partial)) };
    }),
  );
}

const HEAD = `substring(e.body from 1 for ${SEARCHED_BODY_BYTES})`;
const SEARCHABLE_COLUMNS = `e.id, e.endpoint_id, position('\\x00'::bytea in ${HEAD}) <> 0 as body_escaped,
  case when position('\\x00'::bytea in ${HEAD}) = 0 then convert_from(${HEAD}, 'LATIN1') else encode(${HEAD}, 'escape') end as body_text,
  e.headers::text as headers_text, ${REQUEST_TEXT_SQL} as request_text, ${CODED_SQL} as coded`;

/** The id range the index is complete for, or undefined when there is no usable index (no pg_trgm, or the job has not started). */
export interface SearchIndexCoverage {
  from: string;
  through: string;
}

/** Where the index stands, read once per search (one row, and a catalog lookup). */
export async function searchIndexCoverage(em: EntityManager): Promise<SearchIndexCoverage | undefined> {
  const rows = await em.execute<Array<{ indexed_from: string; indexed_through: string }>>(
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
    // Events with a Content-Encoding are left to copyCodedEvents: PostgreSQL cannot decode their bodies.
    const batch = await client.query<{ rows: number; last: string | null; coded: string[] }>(
      `with batch as (select ${SEARCHABLE_COLUMNS} from events e where e.id >= $1 and e.id < $2 order by e.id limit $3),
            copied as (insert into event_search (id, endpoint_id, body_escaped, body_text, headers_text, request_text)
                       select id, endpoint_id, body_escaped, body_text, headers_text, request_text from batch where not coded on conflict (id) do nothing)
       select count(*)::int as rows, max(id::text) as last, coalesce(array_agg(id::text) filter (where coded), '{}') as coded from batch`,
      [current.indexed_through, upTo, batchRows],
    );
    const { rows, last, coded } = batch.rows[0]!;
    await copyCodedEvents(client, coded);
    const more = rows === batchRows;
    const through = more ? last! : upTo;
    await client.query(`update event_search_state set indexed_through = $1 where id = 1`, [through]);
    return { rows, more, coverage: { from: current.indexed_from, through } };
  });
}

/** Copies these events into the index with their bodies formed here (decoded), CODED_ROWS_PER_READ at a time. */
async function copyCodedEvents(client: PoolClient, ids: string[]): Promise<void> {
  for (let start = 0; start < ids.length; start += CODED_ROWS_PER_READ) {
    const read = await client.query<CodedBodyRow & { endpoint_id: string; headers_text: string; request_text: string }>(
      `select ${CODED_BODY_COLUMNS}, e.endpoint_id, e.headers::text as headers_text, ${REQUEST_TEXT_SQL} as request_text from events e where e.id = any($1::uuid[])`,
      [ids.slice(start, start + CODED_ROWS_PER_READ)],
    );
    const bodies = await searchableCodedBodies(read.rows);
    await client.query(
      `insert into event_search (id, endpoint_id, body_escaped, body_text, headers_text, request_text)
       select * from unnest($1::uuid[], $2::uuid[], $3::boolean[], $4::text[], $5::text[], $6::text[])
       on conflict (id) do nothing`,
      [
        read.rows.map((row) => row.id),
        read.rows.map((row) => row.endpoint_id),
        bodies.map((body) => body.escaped),
        bodies.map((body) => body.text),
        read.rows.map((row) => row.headers_text),
        read.rows.map((row) => row.request_text),
      ],
    );
  }
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
