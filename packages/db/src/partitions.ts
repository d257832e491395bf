import { uuidv7Floor } from "@rehook/core";
import type { Pool } from "./pool.js";

/** Daily partitions of `events` kept ready ahead of today (EVENT_PARTITION_DAYS_AHEAD). */
export const EVENT_PARTITION_DAYS_AHEAD = 14;

/** One partition of `events`: its id range (null `from`: every id below `to`). */
export interface EventPartition {
  name: string;
  from: string | null;
  to: string;
}

const DAY_MS = 86_400_000;
const utcDay = (ms: number) => Math.floor(ms / DAY_MS) * DAY_MS;
const partitionName = (dayMs: number) => `events_p${new Date(dayMs).toISOString().slice(0, 10).replaceAll("-", "")}`;

/** The range partitions of `events`, oldest first (the default partition is not among them). */
export async function eventPartitions(pool: Pool): Promise<EventPartition[]> {
  const result = await pool.query<{ name: string; bound: string }>(
    `select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as bound
     from pg_inherits i join pg_class c on c.oid = i.inhrelid
     where i.inhparent = 'events'::regclass`,
  );
  const partitions: EventPartition[] = [];
  for (const { name, bound } of result.rows) {
    const match = /FROM \((?:'([0-9a-f-]{36})'|MINVALUE)\) TO \('([0-9a-f-]{36})'\)/.exec(bound);
    if (match) partitions.push({ name, from: match[1] ?? null, to: match[2]! });
  }
  return partitions.sort((a, b) => (a.to < b.to ? -1 : 1));
}

/**
 * Makes sure a partition exists for every UTC day from `daysBehind` days ago to `daysAhead`
 * days on, each the ids of that day; a day some partition covers already is left alone.
 * Answers the partitions it created. A day whose ids already sit in the default partition
 * (a clock that ran far ahead, or events older than the partitions) is skipped with its
 * reason: those events stay in the default partition, found and purged like any other.
 */
export async function ensureEventPartitions(
  pool: Pool,
  nowMs: number,
  days: { ahead?: number; behind?: number } = {},
): Promise<{ created: string[]; skipped: Array<{ name: string; reason: string }> }> {
  const existing = await eventPartitions(pool);
  const covered = (from: string, to: string) => existing.some((partition) => (partition.from === null || partition.from < to) && from < partition.to);
  const created: string[] = [];
  const skipped: Array<{ name: string; reason: string }> = [];
  const today = utcDay(nowMs);
  for (let day = today - (days.behind ?? 0) * DAY_MS; day <= today + (days.ahead ?? EVENT_PARTITION_DAYS_AHEAD) * DAY_MS; day += DAY_MS) {
    const [from, to] = [uuidv7Floor(day), uuidv7Floor(day + DAY_MS)];
    if (covered(from, to)) continue;
    const name = partitionName(day);
    try {
      await pool.query(`create table "${name}" partition of events for values from ('${from}') to ('${to}')`);
      created.push(name);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      // Another instance made it at the same moment: nothing to report. Depending on how far
      // the other's CREATE had got, PostgreSQL says "already exists" or breaks the catalog's
      // unique index (23505, "duplicate key value violates unique constraint").
      const code = (error as { code?: string }).code;
      if (!/already exists/.test(reason) && code !== "23505") skipped.push({ name, reason });
    }
  }
  return { created, skipped };
}
