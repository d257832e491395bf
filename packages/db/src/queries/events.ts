import type { EntityManager } from "@mikro-orm/postgresql";
import {
  CODED_HEADER_PATTERN,
  isUuid,
  searchPatterns,
  SEARCHED_BODY_BYTES,
  uuidv7Floor,
  uuidv7Timestamp,
  type EventStatus,
  type ExportedEvent,
  type HeaderList,
  type SignatureReason,
  type SignatureStatus,
} from "@rehook/core";
import { TRANSACTION_SETTINGS_SQL } from "../session-settings.js";
import { CODED_BODY_COLUMNS, CODED_ROWS_PER_READ, REQUEST_TEXT_SQL, searchableCodedBodies, searchIndexCoverage, type CodedBodyRow } from "./event-search-index.js";
import { CAPTURED_REQUEST_COLUMNS, capturedRequest, type CapturedRequestFields, type CapturedRequestRow } from "./captured-request.js";
import { markDeliveries, type ListedDelivery } from "./event-deliveries.js";
import { EVENT_RESOLVED_SQL, resolvedEventIds } from "./delivery-resolution.js";

/** One row of the activity feed. */
export interface EventSummary {
  id: string;
  endpointId: string;
  endpointName: string;
  method: string;
  /** The sub-path after the capture URL ("" for none) and the query string without "?". */
  path: string;
  query: string;
  /** The body's length in bytes. */
  sizeBytes: number;
  source: string;
  eventType: string;
  status: EventStatus;
  /** What the endpoint's signature check found (null: it checks none). */
  signature: SignatureStatus | null;
  /** Why the signature is not valid (null: valid, nothing checked, or checked before reasons were recorded). */
  signatureReason: SignatureReason | null;
  latencyMs: number | null;
  responseStatus: number | null;
  receivedAt: Date;
  /** When a scheduled retry is due (pending events between attempts), else null. */
  nextAttemptAt: Date | null;
  /**
   * A failed event whose every failed delivery is resolved (a replay delivered to that
   * destination, or a member marked it, see core's eventResolved); its status stays failed.
   */
  resolved: boolean;
  /** A duplicate: the first event with its dedup key (null otherwise). */
  duplicateOf: string | null;
  /** Each destination it was routed to and how that delivery stands (lists mark their rows with markPage). */
  deliveries: ListedDelivery[];
}

export interface EventFilter {
  endpointId?: string;
  status?: EventStatus;
  source?: string;
  eventType?: string;
  signature?: SignatureStatus;
  /** Received at or after this time. */
  receivedAfter?: Date;
  /** Received before this time. */
  receivedBefore?: Date;
  /** Keyset cursor: only events older than this id (ids are UUIDv7, ordered by time). */
  before?: string;
  /** Text the body (its first SEARCHED_BODY_BYTES, decoded when compressed), a header, or the sub-path and query contain, case-insensitively. */
  search?: string;
  /** Leave out resolved failed events (see EventSummary.resolved). */
  unresolved?: boolean;
}

interface SummaryRow {
  id: string;
  endpoint_id: string;
  endpoint_name: string;
  method: string;
  path: string;
  query: string;
  size_bytes: number;
  source: string;
  event_type: string;
  status: EventStatus;
  signature: SignatureStatus | null;
  signature_reason: SignatureReason | null;
  latency_ms: number | null;
  response_status: number | null;
  received_at: Date;
  next_attempt_at: Date | null;
  duplicate_of: string | null;
  /** Only where the query computes it (one event's page); a list marks its rows with markResolved. */
  resolved?: boolean;
}


/**
 * Most body bytes one read of full events brings into memory (stream backlogs, bulk replays,
 * delivery recovery): a body may be 10 MiB, so pages are cut by bytes, not only by rows.
 */
export const BODY_BYTES_PER_READ = 8 * 1024 * 1024;

/**
 * The ids of a page cut by body bytes. `candidates` selects `id` and `size` (the body's
 * octet_length, which PostgreSQL reads without fetching the body) in `order` (id order unless
 * said; its columns selected too), with its own
 * LIMIT; a row is kept while the bodies before it add up to less than the bound, so a page
 * always has its first row and exceeds the bound by at most one body.
 */
export function byteBoundedIds(candidates: string, maxBytesPlaceholder: string, order = "id"): string {
  return `select id from (select id, sum(size) over (order by ${order}) - size as bytes_before from (${candidates}) candidates) sized
          where bytes_before < ${maxBytesPlaceholder}`;
}

const SUMMARY_COLUMNS = `e.id, e.endpoint_id, p.name as endpoint_name, e.method, e.path, e.query, e.size_bytes, e.source, e.event_type, e.status,
       e.signature, e.signature_reason, e.latency_ms, e.response_status, e.received_at, e.next_attempt_at, e.duplicate_of`;
/** What a listing reads of each event (never the bodies). */
const LISTED_COLUMNS = `e.id, e.endpoint_id, e.method, e.path, e.query, e.size_bytes, e.source, e.event_type, e.status, e.signature, e.signature_reason, e.latency_ms, e.response_status, e.received_at, e.next_attempt_at, e.duplicate_of`;

const toSummary = (row: SummaryRow): EventSummary => ({
  id: row.id,
  endpointId: row.endpoint_id,
  endpointName: row.endpoint_name,
  method: row.method,
  path: row.path,
  query: row.query,
  sizeBytes: row.size_bytes,
  source: row.source,
  eventType: row.event_type,
  status: row.status,
  signature: row.signature,
  signatureReason: row.signature_reason,
  latencyMs: row.latency_ms,
  responseStatus: row.response_status,
  receivedAt: new Date(row.received_at),
  nextAttemptAt: row.next_attempt_at === null ? null : new Date(row.next_attempt_at),
  resolved: row.resolved ?? false,
  duplicateOf: row.duplicate_of ?? null,
  deliveries: [],
});

/**
 * A page's rows with what lists show beside each: resolved, and each delivery's state (one
 * indexed query each, on the page's ids only).
 */
export async function markPage(em: EntityManager, rows: EventSummary[]): Promise<EventSummary[]> {
  return markDeliveries(em, await markResolved(em, rows));
}

/**
 * Marks the resolved failed rows: one indexed query on the page's failed ids (none when the
 * page has no failed row), not a per-row join in the page's own query.
 */
export async function markResolved(em: EntityManager, rows: EventSummary[]): Promise<EventSummary[]> {
  const failed = rows.filter((row) => row.status === "failed").map((row) => row.id);
  if (failed.length === 0) return rows;
  const ids = await resolvedEventIds(em, failed);
  return rows.map((row) => (ids.has(row.id) ? { ...row, resolved: true } : row));
}

/**
 * The search predicate on `e` (see core's event-search.ts for the forms bodies, headers and
 * the request are compared in). `sql` keeps the events that match and those with a
 * Content-Encoding header (core's CODED_HEADER_PATTERN), whose body PostgreSQL cannot decode: `undecided` (a
 * column) marks the ones of those that match by nothing else, for resolveUndecided to read.
 */
function searchCondition(text: string): { sql: string; params: string[]; undecided: string; undecidedParams: string[] } {
  const patterns = searchPatterns(text);
  const head = `substring(e.body from 1 for ${SEARCHED_BODY_BYTES})`;
  // ILIKE is LIKE on lower() of both sides (a UTF-8 database): written so, with LIKE ANY, the
  // headers are lowercased once for both of their patterns. Measured on 200,000 bodies, the
  // Content-Encoding and path checks cost about 35% more per event read as separate ILIKEs,
  // about 15% this way.
  const headers = `lower(e.headers::text)`;
  const request = `case when e.query = '' then e.path ilike ? escape '\\' else ${REQUEST_TEXT_SQL} ilike ? escape '\\' end`;
  return {
    sql: `(case when position('\\x00'::bytea in ${head}) = 0 then convert_from(${head}, 'LATIN1') ilike ? escape '\\'
                else encode(${head}, 'escape') ilike ? escape '\\' end
           or ${headers} like any (array[lower(?), '${CODED_HEADER_PATTERN}'])
           or ${request})`,
    params: [patterns.body, patterns.escapedBody, patterns.headers, patterns.body, patterns.body],
    undecided: `(${headers} like '${CODED_HEADER_PATTERN}' and not (${headers} like lower(?) or ${request}))`,
    undecidedParams: [patterns.headers, patterns.body, patterns.body],
  };
}

/**
 * Which of these events (undecided by searchCondition) have a body whose searchable form
 * (decoded: core's searchableBodyOf) contains the text: read CODED_ROWS_PER_READ at a time,
 * formed here and compared by PostgreSQL, with the patterns and ILIKE every other body meets.
 */
async function resolveUndecided(em: EntityManager, ids: string[], text: string): Promise<Set<string>> {
  const patterns = searchPatterns(text);
  const found = new Set<string>();
  for (let start = 0; start < ids.length; start += CODED_ROWS_PER_READ) {
    const rows = await em.execute<CodedBodyRow[]>(`select ${CODED_BODY_COLUMNS} from events e where e.id = any(?::uuid[])`, [`{${ids.slice(start, start + CODED_ROWS_PER_READ).join(",")}}`]);
    const bodies = await searchableCodedBodies(rows);
    if (bodies.length === 0) continue;
    const matching = await em.execute<Array<{ id: string }>>(
      `select b.id from json_to_recordset(?::json) as b(id uuid, escaped boolean, text text)
       where case when b.escaped then b.text ilike ? escape '\\' else b.text ilike ? escape '\\' end`,
      [JSON.stringify(bodies), patterns.escapedBody, patterns.body],
    );
    for (const row of matching) found.add(row.id);
  }
  return found;
}

/**
 * The search predicate on `s` (event_search): the same comparisons as searchCondition, on the
 * text the index job stored (bodies decoded), so the trigram index can answer them.
 */
function indexedSearchCondition(text: string): { sql: string; params: string[] } {
  const patterns = searchPatterns(text);
  return {
    sql: `((not s.body_escaped and s.body_text ilike ? escape '\\') or (s.body_escaped and s.body_text ilike ? escape '\\')
           or s.headers_text ilike ? escape '\\' or s.request_text ilike ? escape '\\')`,
    params: [patterns.body, patterns.escapedBody, patterns.headers, patterns.body],
  };
}

/** Which of these events a search finds (the live feed of a search: a handful of ids at a time). */
export async function eventIdsMatchingSearch(em: EntityManager, ids: string[], text: string): Promise<Set<string>> {
  const valid = ids.filter((id) => isUuid(id));
  if (valid.length === 0) return new Set();
  const search = searchCondition(text);
  const rows = await em.execute<Array<{ id: string; undecided: boolean }>>(`select e.id, ${search.undecided} as undecided from events e where e.id = any(?::uuid[]) and ${search.sql}`, [
      ...search.undecidedParams,
      `{${valid.join(",")}}`,
      ...search.params,
    ]);
  const decoded = await resolveUndecided(
    em,
    rows.filter((row) => row.undecided).map((row) => row.id),
    text,
  );
  return new Set(rows.filter((row) => !row.undecided || decoded.has(row.id)).map((row) => row.id));
}

type KeyedColumn = "signature" | "status" | "source" | "event_type";

/**
 * The filters that name one value of a column, in the order a scan prefers their index:
 * signature first, as its index holds only verified endpoints' events and invalid ones are few.
 */
const keyedFilters = (filter: EventFilter): Array<[KeyedColumn, string | undefined]> => [
  ["signature", filter.signature],
  ["status", filter.status],
  ["source", filter.source],
  ["event_type", filter.eventType],
];

/**
 * The conditions on `e` (events) of a filter, but for the keyed column a scan reads through
 * its own index (`except`): values, the time range and cursor as id bounds (constants, so
 * partitions outside them are pruned). Not the search: searchEventSummaries reads it.
 */
function filterConditions(filter: Omit<EventFilter, "search">, except?: KeyedColumn): { sql: string[]; params: unknown[] } {
  const sql: string[] = [];
  const params: unknown[] = [];
  for (const [column, value] of keyedFilters(filter)) if (value !== undefined && column !== except) (sql.push(`e.${column} = ?`), params.push(value));
  if (filter.receivedAfter) (sql.push("e.id >= ?"), params.push(uuidv7Floor(filter.receivedAfter.getTime())));
  if (filter.receivedBefore) (sql.push("e.id < ?"), params.push(uuidv7Floor(filter.receivedBefore.getTime())));
  if (filter.before) (sql.push("e.id < ?"), params.push(filter.before));
  // Only failed events are ever "resolved": others replayed stay listed, whatever the status filter.
  if (filter.unresolved) sql.push(`not ${EVENT_RESOLVED_SQL}`);
  return { sql, params };
}

/** The user's endpoints (or the one filtered), as conditions on `p`. */
function endpointConditions(teamId: string, filter: EventFilter): { sql: string[]; params: unknown[] } {
  return filter.endpointId ? { sql: ["p.team_id = ?", "p.id = ?"], params: [teamId, filter.endpointId] } : { sql: ["p.team_id = ?"], params: [teamId] };
}

const NIL_UUID = "00000000-0000-0000-0000-000000000000";
/** Above every event id (a UUIDv7 has 7 where this has f). */
const MAX_UUID = "ffffffff-ffff-ffff-ffff-ffffffffffff";

/*
 * How a lateral subquery reads one endpoint's (`p`) matching events, newest first: through
 * that endpoint's index, `(endpoint_id, id)` or `(endpoint_id, status|source|event_type, id)`
 * when one of those is filtered, by the order only that index gives. Written as
 * `endpoint_id = p.id … order by id`, the planner may instead walk the time-ordered primary
 * key and filter, a fine guess for an endpoint with events on every page and a ruinous one
 * for an idle endpoint, for which it reads every event of every day (2.5 s per page at 10M).
 * So the scan is a row range, `(endpoint_id, id)` or `(column, id)` after `endpoint_id =`,
 * ordered by those columns: the primary key cannot give that order, and the range's first
 * column ends the scan where the endpoint's (or the value's) entries end.
 */
function endpointScan(filter: Omit<EventFilter, "search">): { sql: string[]; params: unknown[]; orderBy: string } {
  const low = filter.receivedAfter ? uuidv7Floor(filter.receivedAfter.getTime()) : NIL_UUID;
  const highs = [filter.receivedBefore ? uuidv7Floor(filter.receivedBefore.getTime()) : MAX_UUID, filter.before?.toLowerCase() ?? MAX_UUID];
  const high = highs.sort()[0]!;
  const keyed = keyedFilters(filter).find(([, value]) => value !== undefined);
  const rest = filterConditions(filter, keyed?.[0]);
  if (!keyed) {
    return {
      sql: ["(e.endpoint_id, e.id) >= (p.id, ?::uuid)", "(e.endpoint_id, e.id) < (p.id, ?::uuid)", ...rest.sql],
      params: [low, high, ...rest.params],
      orderBy: "e.endpoint_id desc, e.id desc",
    };
  }
  const [column, value] = keyed;
  // The signature index is partial (not null): the row range alone does not tell the planner the rows qualify.
  const partial = column === "signature" ? ["e.signature is not null"] : [];
  return {
    sql: ["e.endpoint_id = p.id", `(e.${column}, e.id) >= (?, ?::uuid)`, `(e.${column}, e.id) < (?, ?::uuid)`, ...partial, ...rest.sql],
    params: [value, low, value, high, ...rest.params],
    orderBy: `e.${column} desc, e.id desc`,
  };
}

/*
 * The user's events, newest first: the newest `limit` of each endpoint (endpointScan), merged.
 * The cost is that of the page, not of the events before it, whatever their number.
 */
function eventPageQuery(teamId: string, filter: Omit<EventFilter, "search">, limit: number): { sql: string; params: unknown[] } {
  const scan = endpointScan(filter);
  const endpoints = endpointConditions(teamId, filter);
  return {
    sql: `select ${SUMMARY_COLUMNS}
          from endpoints p
          cross join lateral (select ${LISTED_COLUMNS} from events e where ${scan.sql.join(" and ")} order by ${scan.orderBy} limit ?) e
          where ${endpoints.sql.join(" and ")}
          order by e.id desc
          limit ?`,
    params: [...scan.params, limit, ...endpoints.params, limit],
  };
}

/** A keyset page of the user's events, newest first: the thousandth page costs what the first does. */
export async function listEventSummaries(em: EntityManager, teamId: string, filter: EventFilter, limit: number): Promise<EventSummary[]> {
  // A search without a start reads from the first event (services gives it a day's window).
  if (filter.search) return searchEventSummaries(em, teamId, { ...filter, receivedAfter: filter.receivedAfter ?? new Date(0), search: filter.search }, limit);
  const { sql, params } = eventPageQuery(teamId, filter, limit);
  // The planner knows little of a row range's size and may think an endpoint's matches few
  // enough to collect and sort; for a busy endpoint and a deep offset that is every event it
  // has (17 s at 10M). Sorting priced out, each endpoint is read in index order, up to the page.
  // Pricing out adds PostgreSQL's disable-cost (1e10) to the plan, far past the JIT thresholds:
  // JIT is off for the transaction too, whatever session a pooler hands out (session-settings.ts).
  const rows = await em.transactional(async (tx) => {
    await tx.execute(TRANSACTION_SETTINGS_SQL);
    await tx.execute("set local enable_sort = off");
    return tx.execute<SummaryRow[]>(sql, params);
  });
  return markPage(em, rows.map(toSummary));
}

/** The time slices a search's window is cut into when read without the index, and how many reads run at once (each on a connection of its own). */
export const SEARCH_SLICES = 48;
export const SEARCH_SLICES_AT_ONCE = 2;

/**
 * A search page, read newest first in pieces of the window, SEARCH_SLICES_AT_ONCE at a time,
 * until the pieces read from the newest hold the page. The part of the window the search
 * index is complete for (event-search-index.ts), but for its newest slice, is one piece,
 * read through its trigram index. The rest (the newest seconds the index job has not
 * reached, that slice, days older than the index keeps, or the whole window where there is
 * no index) is read from the bodies, cut into slices of time, each through the events'
 * primary key: a search with many matches reads the newest slices only, one with few reads
 * every slice it cannot read through the index.
 */
async function searchEventSummaries(em: EntityManager, teamId: string, filter: EventFilter & { receivedAfter: Date; search: string }, limit: number): Promise<EventSummary[]> {
  const endpoints = endpointConditions(teamId, filter);
  const owned = await em.execute<Array<{ id: string }>>(`select p.id from endpoints p where ${endpoints.sql.join(" and ")}`, endpoints.params);
  if (owned.length === 0) return [];
  const endpointIds = `{${owned.map((row) => row.id).join(",")}}`;
  const where = filterConditions(filter);
  const fromMs = filter.receivedAfter.getTime();
  const toMs = Math.max(fromMs, Math.min(filter.receivedBefore?.getTime() ?? Date.now(), filter.before ? uuidv7Timestamp(filter.before).getTime() + 1 : Date.now()));
  const low = uuidv7Floor(fromMs);
  const coverage = await searchIndexCoverage(em);

  /**
   * The events with ids in [lowId, highId) that match, read from their bodies through the
   * primary key (highId undefined: no bound but the filter's). Compressed bodies are decided
   * in Node (resolveUndecided); when that leaves the read short of the page, it goes on below
   * the oldest row it had.
   */
  const readBodies = (lowId: string, highId: string | undefined) => async (): Promise<EventSummary[]> => {
    const search = searchCondition(filter.search);
    const found: EventSummary[] = [];
    for (let high = highId; ; ) {
      const rows = await em.execute<Array<SummaryRow & { undecided: boolean }>>(
        `select ${SUMMARY_COLUMNS}, ${search.undecided} as undecided
         from events e join endpoints p on p.id = e.endpoint_id
         where e.endpoint_id = any(?::uuid[]) and ${[...where.sql, search.sql, "e.id >= ?", ...(high ? ["e.id < ?"] : [])].join(" and ")}
         order by e.id desc
         limit ?`,
        [...search.undecidedParams, endpointIds, ...where.params, ...search.params, lowId, ...(high ? [high] : []), limit],
      );
      const decoded = await resolveUndecided(
        em,
        rows.filter((row) => row.undecided).map((row) => row.id),
        filter.search,
      );
      found.push(...rows.filter((row) => !row.undecided || decoded.has(row.id)).map(toSummary));
      if (rows.length < limit || found.length >= limit) return found.slice(0, limit);
      high = rows[rows.length - 1]!.id;
    }
  };
  /*
   * The matches with ids in [lowId, highId), found through the trigram index: every match of
   * the range is collected first (materialized, with no LIMIT to tempt the planner into
   * walking the primary key in order and filtering, which reads the whole range for a rare
   * text), then the page is taken from them. The cost follows the number of matches, so this
   * runs after the range's newest slice has been read from bodies: a text common enough to
   * fill a page there never comes here.
   */
  const readIndexed = (lowId: string, highId: string) => async (): Promise<EventSummary[]> => {
    const search = indexedSearchCondition(filter.search);
    const rows = await em.execute<SummaryRow[]>(
      `with hits as materialized (
         select s.id from event_search s where s.endpoint_id = any(?::uuid[]) and s.id >= ? and s.id < ? and ${search.sql}
       )
       select ${SUMMARY_COLUMNS}
       from hits h join events e on e.id = h.id join endpoints p on p.id = e.endpoint_id
       where ${[...where.sql, "e.id >= ?", "e.id < ?"].join(" and ")}
       order by e.id desc
       limit ?`,
      [endpointIds, lowId, highId, ...search.params, ...where.params, lowId, highId, limit],
    );
    return rows.map(toSummary);
  };
  const sliceMs = Math.max(1, toMs - fromMs) / SEARCH_SLICES;
  /** [lowId, highId) cut into its share of SEARCH_SLICES slices of time, newest first. */
  const sliced = (lowId: string, highId: string | undefined) => {
    const [startMs, endMs] = [Math.max(fromMs, uuidv7Timestamp(lowId).getTime()), highId ? Math.min(toMs, uuidv7Timestamp(highId).getTime()) : toMs];
    const count = Math.max(1, Math.round(Math.max(0, endMs - startMs) / sliceMs));
    const bound = (k: number) => (k === 0 ? highId : k === count ? lowId : uuidv7Floor(endMs - ((endMs - startMs) * k) / count));
    return Array.from({ length: count }, (_, k) => readBodies(bound(k + 1)!, bound(k)));
  };
  // Stages run one after the other, each SEARCH_SLICES_AT_ONCE reads at a time: the index's
  // read stands alone, so it starts only once everything newer has been read and the page is
  // still not full (a common text would make it collect every match of the range).
  const stages: Array<Array<() => Promise<EventSummary[]>>> = [];
  if (coverage && coverage.through > low) {
    const indexedFrom = coverage.from > low ? coverage.from : low;
    // The index's newest slice is read from bodies; the rest of its range through the index.
    const sliceStart = uuidv7Floor(Math.max(fromMs, uuidv7Timestamp(coverage.through).getTime() - sliceMs));
    const indexedTo = sliceStart > indexedFrom ? sliceStart : indexedFrom;
    stages.push([...sliced(coverage.through, undefined), readBodies(indexedTo, coverage.through)]);
    if (indexedTo > indexedFrom) stages.push([readIndexed(indexedFrom, indexedTo)]);
    if (indexedFrom > low) stages.push(sliced(low, indexedFrom));
  } else {
    stages.push(sliced(low, undefined));
  }

  const pieces: EventSummary[][] = [];
  const found = () => pieces.reduce((sum, piece) => sum + piece.length, 0);
  for (const reads of stages) {
    if (found() >= limit) break;
    const stage: Array<EventSummary[] | undefined> = [];
    // Done when every read of the stage from its newest up to the one that completes the page has been read.
    const pageIsFull = () => {
      let count = found();
      for (const piece of stage) {
        if (!piece) return false;
        count += piece.length;
        if (count >= limit) return true;
      }
      return false;
    };
    let next = 0;
    const lane = async () => {
      while (next < reads.length && !pageIsFull()) {
        const k = next;
        next += 1;
        stage[k] = await reads[k]!();
      }
    };
    await Promise.all(Array.from({ length: SEARCH_SLICES_AT_ONCE }, lane));
    // Reads are started in order, so those read form a run from the newest.
    pieces.push(...stage.filter((piece): piece is EventSummary[] => piece !== undefined));
  }
  return markPage(em, pieces.flat().slice(0, limit));
}

/** The most an offset may skip (MAX_EVENT_OFFSET): deeper pages are read with the cursor. */
export const MAX_EVENT_OFFSET = 10_000;

/** An offset page (offset at most MAX_EVENT_OFFSET): the newest offset + limit are read, the first offset dropped. */
export async function listEventSummariesAt(em: EntityManager, teamId: string, filter: EventFilter, limit: number, offset: number): Promise<EventSummary[]> {
  const rows = await listEventSummaries(em, teamId, filter, offset + limit);
  return rows.slice(offset);
}

/** Past this many, a count that the per-status counts cannot give is reported as this many (capped). */
export const COUNT_CAP = 10_000;

/** How many of the user's events match, counted up to COUNT_CAP + 1 (filters event_counts cannot answer). */
export async function countMatchingEventsCapped(em: EntityManager, teamId: string, filter: Omit<EventFilter, "search">): Promise<{ total: number; capped: boolean }> {
  const scan = endpointScan(filter);
  const endpoints = endpointConditions(teamId, filter);
  // Unordered: endpoint after endpoint, the count stops at the cap (no merge, no sort); the
  // scan's row range still leads the planner to the endpoint's own index.
  const rows = await em.execute<Array<{ n: string }>>(
    `select count(*) as n from (
       select 1 from endpoints p
       cross join lateral (select 1 from events e where ${scan.sql.join(" and ")} limit ?) e
       where ${endpoints.sql.join(" and ")}
       limit ?
     ) matching`,
    [...scan.params, COUNT_CAP + 1, ...endpoints.params, COUNT_CAP + 1],
  );
  const n = Number(rows[0]!.n);
  return n > COUNT_CAP ? { total: COUNT_CAP, capped: true } : { total: n, capped: false };
}

/** The feed rows for these ids that belong to the user (for live updates). */
export async function eventSummariesByIds(em: EntityManager, teamId: string, ids: string[]): Promise<EventSummary[]> {
  const valid = ids.filter((id) => isUuid(id));
  if (valid.length === 0) return [];
  const rows = await em.execute<SummaryRow[]>(
    `select ${SUMMARY_COLUMNS}
     from events e join endpoints p on p.id = e.endpoint_id
     where e.id = any(?::uuid[]) and p.team_id = ?
     order by e.id desc`,
    // An array literal: the query builder would spread a JS array into a list of parameters.
    [`{${valid.join(",")}}`, teamId],
  );
  return markPage(em, rows.map(toSummary));
}

/** Everything stored about one event; the body only up to the preview size asked for. */
export interface EventDetail extends EventSummary {
  path: string;
  query: string;
  headers: HeaderList;
  /** The body's first bytes (all of it unless `bodyTruncated`). */
  body: Buffer;
  /** The body is longer than `body`: `sizeBytes` is its whole length. */
  bodyTruncated: boolean;
  contentType: string | null;
  sizeBytes: number;
  clientIp: string | null;
  destinationUrl: string | null;
  forwardedAt: Date | null;
  completedAt: Date | null;
  responseHeaders: HeaderList | null;
  responseBody: Buffer | null;
  responseTruncated: boolean;
  error: string | null;
  endpointSlug: string;
  replayCount: number;
  /** While pending: when the next attempt is due (a retry is scheduled, or it was made due now). */
  nextAttemptAt: Date | null;
  /** What the sender was answered (null: captured before answers were recorded). */
  senderResponse: { status: number; delayMs: number } | null;
}

/** One of the user's events with the first `previewBytes` of its body; null when it is missing or someone else's. */
export async function findOwnedEvent(em: EntityManager, teamId: string, eventId: string, previewBytes: number): Promise<EventDetail | null> {
  if (!isUuid(eventId)) return null;
  const rows = await em.execute<
    Array<
      SummaryRow & {
        headers: HeaderList;
        body_preview: Buffer;
        body_bytes: number;
        content_type: string | null;
        client_ip: string | null;
        destination_url: string | null;
        forwarded_at: Date | null;
        completed_at: Date | null;
        response_headers: HeaderList | null;
        response_body: Buffer | null;
        response_truncated: boolean;
        error: string | null;
        endpoint_slug: string;
        replay_count: string;
        next_attempt_at: Date | null;
        sender_status: number | null;
        sender_delay_ms: number | null;
      }
    >
  >(
    // substring reads only the slice of a large (TOASTed) body; octet_length reads its header.
    `select ${SUMMARY_COLUMNS}, e.headers, substring(e.body from 1 for ?) as body_preview,
            octet_length(e.body) as body_bytes, e.content_type, e.client_ip,
            e.destination_url, e.forwarded_at, e.completed_at, e.response_headers, e.response_body,
            e.response_truncated, e.error, p.slug as endpoint_slug, e.next_attempt_at, e.sender_status, e.sender_delay_ms,
            (select count(*) from replay_attempts r where r.event_id = e.id) as replay_count,
            ${EVENT_RESOLVED_SQL} as resolved
     from events e join endpoints p on p.id = e.endpoint_id
     where e.id = ? and p.team_id = ?`,
    [previewBytes, eventId, teamId],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    ...toSummary(row),
    path: row.path,
    query: row.query,
    headers: typeof row.headers === "string" ? JSON.parse(row.headers) : row.headers,
    body: row.body_preview,
    bodyTruncated: row.body_bytes > row.body_preview.byteLength,
    contentType: row.content_type,
    sizeBytes: row.body_bytes,
    clientIp: row.client_ip,
    destinationUrl: row.destination_url,
    forwardedAt: row.forwarded_at ? new Date(row.forwarded_at) : null,
    completedAt: row.completed_at ? new Date(row.completed_at) : null,
    responseHeaders: typeof row.response_headers === "string" ? JSON.parse(row.response_headers) : row.response_headers,
    responseBody: row.response_body,
    responseTruncated: row.response_truncated,
    error: row.error,
    endpointSlug: row.endpoint_slug,
    replayCount: Number(row.replay_count),
    nextAttemptAt: row.status === "pending" && row.next_attempt_at ? new Date(row.next_attempt_at) : null,
    senderResponse: row.sender_status === null ? null : { status: row.sender_status, delayMs: row.sender_delay_ms ?? 0 },
  };
}

/**
 * What a download of one of the user's event bodies announces before the bytes: its size,
 * Content-Type and Content-Encoding (repeated headers joined); null when missing or someone else's.
 */
export async function findOwnedEventBody(
  em: EntityManager,
  teamId: string,
  eventId: string,
): Promise<{ sizeBytes: number; contentType: string | null; contentEncoding: string | null } | null> {
  if (!isUuid(eventId)) return null;
  const rows = await em.execute<Array<{ body_bytes: number; content_type: string | null; content_encoding: string | null }>>(
    `select octet_length(e.body) as body_bytes, e.content_type,
            (select string_agg(h->>1, ', ') from json_array_elements(e.headers) h where lower(h->>0) = 'content-encoding') as content_encoding
     from events e join endpoints p on p.id = e.endpoint_id where e.id = ? and p.team_id = ?`,
    [eventId, teamId],
  );
  const row = rows[0];
  return row ? { sizeBytes: row.body_bytes, contentType: row.content_type, contentEncoding: row.content_encoding } : null;
}

/** `length` bytes of the user's event body from `offset` (fewer at its end); null when the event is gone. */
export async function ownedEventBodySlice(em: EntityManager, teamId: string, eventId: string, offset: number, length: number): Promise<Buffer | null> {
  if (!isUuid(eventId)) return null;
  const rows = await em.execute<Array<{ slice: Buffer }>>(
    `select substring(e.body from ? for ?) as slice from events e join endpoints p on p.id = e.endpoint_id where e.id = ? and p.team_id = ?`,
    [offset + 1, length, eventId, teamId],
  );
  return rows[0]?.slice ?? null;
}

/** An event with everything needed to send it again from elsewhere (`rehook listen`). */
export interface FullEvent extends CapturedRequestFields {
  source: string;
  eventType: string;
  receivedAt: Date;
  /** The order it committed in (see the event_stored_order migration); null for events stored before it. */
  storedOrder: string | null;
}

interface FullRow extends CapturedRequestRow {
  source: string;
  event_type: string;
  received_at: Date;
  stored_order: string | null;
}

const toFull = (row: FullRow): FullEvent => ({
  ...capturedRequest(row),
  source: row.source,
  eventType: row.event_type,
  receivedAt: new Date(row.received_at),
  storedOrder: row.stored_order,
});

const FULL_COLUMNS = `${CAPTURED_REQUEST_COLUMNS}, e.source, e.event_type, e.received_at, e.stored_order`;
/** Commit order (see the event_stored_order migration); events from before it (null) first, by id. */
const STORED_ORDER = "stored_order nulls first, id";

/**
 * The endpoint's events after `afterId` (exclusive), oldest first: at most `limit` of them
 * and about `maxBytes` of bodies (always at least one). Empty when there are no more.
 */
export async function fullEventsAfter(
  em: EntityManager,
  teamId: string,
  endpointId: string,
  afterId: string,
  limit: number,
  maxBytes = BODY_BYTES_PER_READ,
): Promise<FullEvent[]> {
  const candidates = `select e.id, octet_length(e.body) as size from events e join endpoints p on p.id = e.endpoint_id
                      where p.team_id = ? and e.endpoint_id = ? and e.id > ? order by e.id limit ?`;
  const rows = await em.execute<FullRow[]>(
    `with page as (${byteBoundedIds(candidates, "?")})
     select ${FULL_COLUMNS} from page join events e on e.id = page.id order by e.id`,
    [teamId, endpointId, afterId, limit, maxBytes],
  );
  return rows.map(toFull);
}

/**
 * The endpoint's events that committed after the one of order `storedAfter` (see the
 * event_stored_order migration), in commit order, paged as fullEventsAfter: what a stream
 * resumed after that event has not sent. Read by the (endpoint_id, stored_order) index.
 */
export async function fullEventsStoredAfter(
  em: EntityManager,
  teamId: string,
  endpointId: string,
  storedAfter: string,
  limit: number,
  maxBytes = BODY_BYTES_PER_READ,
): Promise<FullEvent[]> {
  const candidates = `select e.id, e.stored_order, octet_length(e.body) as size from events e join endpoints p on p.id = e.endpoint_id
                      where p.team_id = ? and e.endpoint_id = ? and e.stored_order > ? order by e.stored_order limit ?`;
  const rows = await em.execute<FullRow[]>(
    `with page as (${byteBoundedIds(candidates, "?", "stored_order")})
     select ${FULL_COLUMNS} from page join events e on e.id = page.id order by e.stored_order`,
    [teamId, endpointId, storedAfter, limit, maxBytes],
  );
  return rows.map(toFull);
}

/** The order an event of the endpoint was stored in; null when it is gone, someone else's, or predates the order. */
export async function eventStoredOrder(em: EntityManager, teamId: string, endpointId: string, eventId: string): Promise<string | null> {
  if (!isUuid(eventId)) return null;
  const rows = await em.execute<Array<{ stored_order: string | null }>>(
    `select e.stored_order from events e join endpoints p on p.id = e.endpoint_id where p.team_id = ? and e.endpoint_id = ? and e.id = ?`,
    [teamId, endpointId, eventId],
  );
  return rows[0]?.stored_order ?? null;
}

/**
 * These events of the user's endpoint in commit order (stored_order; events from before it
 * first, by id), up to about `maxBytes` of bodies (always the first that exists). Asked ids
 * that are not returned are gone (or someone else's), or were left for the next read.
 */
export async function fullEventsByIds(
  em: EntityManager,
  teamId: string,
  endpointId: string,
  ids: string[],
  maxBytes = BODY_BYTES_PER_READ,
): Promise<FullEvent[]> {
  const valid = ids.filter((id) => isUuid(id));
  if (valid.length === 0) return [];
  const candidates = `select e.id, e.stored_order, octet_length(e.body) as size from events e join endpoints p on p.id = e.endpoint_id
                      where e.id = any(?::uuid[]) and p.team_id = ? and e.endpoint_id = ?`;
  const rows = await em.execute<FullRow[]>(
    `with page as (${byteBoundedIds(candidates, "?", STORED_ORDER)})
     select ${FULL_COLUMNS} from page join events e on e.id = page.id order by e.stored_order nulls first, e.id`,
    [`{${valid.join(",")}}`, teamId, endpointId, maxBytes],
  );
  return rows.map(toFull);
}

interface ExportRow extends FullRow {
  endpoint_slug: string;
  content_type: string | null;
  status: EventStatus;
  signature: SignatureStatus | null;
  latency_ms: number | null;
  error: string | null;
  response_status: number | null;
  response_headers: HeaderList | string | null;
  response_body: Buffer | null;
  response_truncated: boolean;
}

/**
 * These of the user's events whole (bodies and the destination's answer), newest first, up
 * to about `maxBytes` of bodies (always the first that exists): ids after the last one
 * returned were left for the next read. Other users' ids are left out.
 */
export async function exportedEventsByIds(em: EntityManager, teamId: string, ids: string[], maxBytes = BODY_BYTES_PER_READ): Promise<ExportedEvent[]> {
  const valid = ids.filter((id) => isUuid(id));
  if (valid.length === 0) return [];
  // As byteBoundedIds, but summed newest first: the order the export writes in.
  const candidates = `select e.id, octet_length(e.body) as size from events e join endpoints p on p.id = e.endpoint_id
                      where e.id = any(?::uuid[]) and p.team_id = ?`;
  const rows = await em.execute<ExportRow[]>(
    `with sized as (select id, sum(size) over (order by id desc) - size as bytes_before from (${candidates}) candidates),
          page as (select id from sized where bytes_before < ?)
     select ${FULL_COLUMNS}, p.slug as endpoint_slug, e.content_type, e.status, e.signature, e.latency_ms, e.error,
            e.response_status, e.response_headers, e.response_body, e.response_truncated
     from page join events e on e.id = page.id join endpoints p on p.id = e.endpoint_id
     order by e.id desc`,
    [`{${valid.join(",")}}`, teamId, maxBytes],
  );
  return rows.map((row) => {
    const { headers, ...request } = capturedRequest(row);
    const responseHeaders = typeof row.response_headers === "string" ? (JSON.parse(row.response_headers) as HeaderList) : row.response_headers;
    return {
      ...request,
      headers,
      endpointSlug: row.endpoint_slug,
      contentType: row.content_type,
      source: row.source,
      eventType: row.event_type,
      status: row.status,
      signature: row.signature,
      receivedAt: new Date(row.received_at),
      latencyMs: row.latency_ms,
      error: row.error,
      response:
        row.response_status === null ? null : { status: row.response_status, headers: responseHeaders ?? [], body: row.response_body, truncated: row.response_truncated },
    };
  });
}
