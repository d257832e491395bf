import { uuidv7Floor, uuidv7Timestamp } from "@rehook/core";
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
 * Makes sure a partition exists for every UTC day from today to `daysAhead` days on, each
 * the ids of that day. Answers the partitions it created. A day whose ids already sit in the
 * default partition (a clock that ran far ahead) is skipped with its reason: those events
 * stay in the default partition, found and purged like any other.
 */
export async function ensureEventPartitions(pool: Pool, nowMs: number, daysAhead = EVENT_PARTITION_DAYS_AHEAD): Promise<{ created: string[]; skipped: Array<{ name: string; reason: string }> }> {
  const existing = await eventPartitions(pool);
  // Never before what is covered already (the first partition after an upgrade ends at a midnight).
  const coveredTo = existing.length > 0 ? uuidv7Timestamp(existing[existing.length - 1]!.to).getTime() : 0;
  const created: string[] = [];
  const skipped: Array<{ name: string; reason: string }> = [];
  for (let day = Math.max(utcDay(nowMs), coveredTo); day <= utcDay(nowMs) + daysAhead * DAY_MS; day += DAY_MS) {
    const name = partitionName(day);
    try {
      await pool.query(`create table if not exists "${name}" partition of events for values from ('${uuidv7Floor(day)}') to ('${uuidv7Floor(day + DAY_MS)}')`);
      created.push(name);
    } catch (error) {
      skipped.push({ name, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  return { created, skipped };
}
