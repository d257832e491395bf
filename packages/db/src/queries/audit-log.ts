import type { EntityManager } from "@mikro-orm/postgresql";
import type { AuditAction, AuditActor, AuditActorType, AuditChanges, AuditEntry, AuditOrigin, AuditTarget, AuditTargetType } from "@rehook/core";
import { uuidv7 } from "@rehook/core";
import type { Pool } from "../pool.js";

/**
 * A UUIDv7 made by PostgreSQL, for entries a statement writes by itself (a tripped breaker, in
 * the completion statement): the clock's milliseconds over a random v4's first 48 bits, and
 * the version nibble turned from 4 (0100) to 7 (0111). The same layout as core's uuidv7().
 */
export const UUIDV7_SQL = `encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid()) placing substring(int8send((extract(epoch from clock_timestamp()) * 1000)::bigint) from 3) from 1 for 6), 52, 1), 53, 1), 'hex')::uuid`;

/** One entry to write: in these teams (none: no team, as for an unknown email signing in). */
export interface NewAuditEntry {
  teamIds: readonly string[];
  actor: AuditActor;
  action: AuditAction;
  target: AuditTarget;
  changes?: AuditChanges | null;
  origin?: AuditOrigin | null;
}

/*
 * The actor's and the target's names, when the caller has none at hand, are looked up here (a
 * user's email, an API key's name and display prefix, an endpoint's name…): building an actor
 * costs no query on every request, and a target that is deleted in the transaction is named
 * by its caller, who read it first. A target is named only when it is the entry's team's: an
 * id someone sent that names another team's endpoint (an export's filter) stays a bare id.
 */
const INSERT = `
insert into audit_log (id, team_id, actor_type, actor_id, actor_name, action, target_type, target_id, target_name, changes, request_id, ip)
select t.id, t.team_id, a.type, a.id, coalesce(a.name, case a.type
         when 'api_key' then (select k.name || ' (' || k.prefix || '…)' from api_keys k where k.id::text = a.id)
         when 'system' then null
         else (select u.email from users u where u.id::text = a.id) end),
       ?, g.type, g.id, coalesce(g.name, case g.type
         when 'endpoint' then (select p.name from endpoints p where p.id::text = g.id and p.team_id = t.team_id)
         when 'destination' then (select d.name from destinations d join endpoints p on p.id = d.endpoint_id where d.id::text = g.id and p.team_id = t.team_id)
         when 'api_key' then (select k.name || ' (' || k.prefix || '…)' from api_keys k where k.id::text = g.id and k.team_id = t.team_id)
         when 'team' then (select m.name from teams m where m.id::text = g.id and m.id = t.team_id)
         when 'alert_rule' then (select r.name from alert_rules r where r.id::text = g.id and r.team_id = t.team_id)
         when 'member' then (select u.email from users u join team_members x on x.user_id = u.id where u.id::text = g.id and x.team_id = t.team_id) end),
       ?::jsonb, ?, ?
from (select ?::text as type, ?::text as id, ?::text as name) a,
     (select ?::text as type, ?::text as id, ?::text as name) g,
     unnest(?::uuid[], ?::uuid[]) as t(id, team_id)`;

/**
 * Writes an entry, one row per team it concerns, on the entity manager's transaction: call it
 * inside the transaction that makes the change.
 */
export async function insertAuditEntry(em: EntityManager, entry: NewAuditEntry): Promise<void> {
  const teams = entry.teamIds.length > 0 ? [...entry.teamIds] : [null];
  await em.getConnection().execute(
    INSERT,
    [
      entry.action,
      entry.changes ? JSON.stringify(entry.changes) : null,
      entry.origin?.requestId ?? null,
      entry.origin?.ip ?? null,
      entry.actor.type,
      entry.actor.id,
      entry.actor.name,
      entry.target.type,
      entry.target.id,
      entry.target.name,
      `{${teams.map(() => uuidv7()).join(",")}}`,
      `{${teams.map((team) => team ?? "NULL").join(",")}}`,
    ],
    "run",
    em.getTransactionContext(),
  );
}

export interface AuditQuery {
  teamId: string;
  /** Only entries older than this one (the previous page's last id). */
  cursor?: string;
  limit: number;
  actorId?: string;
  actorType?: AuditActorType;
  /** An action ("endpoint.update"), or a target's actions ("endpoint."). */
  action?: string;
  targetType?: AuditTargetType;
  targetId?: string;
  from?: Date;
  to?: Date;
}

interface AuditRow {
  id: string;
  at: Date;
  actor_type: AuditActorType;
  actor_id: string | null;
  actor_name: string | null;
  action: AuditAction;
  target_type: AuditTargetType | null;
  target_id: string | null;
  target_name: string | null;
  changes: AuditChanges | null;
  request_id: string | null;
  ip: string | null;
}

const toEntry = (row: AuditRow): AuditEntry => ({
  id: row.id,
  at: new Date(row.at),
  actor: { type: row.actor_type, id: row.actor_id, name: row.actor_name },
  action: row.action,
  target: { type: row.target_type ?? "team", id: row.target_id, name: row.target_name },
  changes: row.changes,
  requestId: row.request_id,
  ip: row.ip,
});

/** The team's entries, newest first, one page (filters narrow it; the (team_id, id) index orders it). */
export async function listAuditEntries(em: EntityManager, query: AuditQuery): Promise<AuditEntry[]> {
  const where = ["team_id = ?"];
  const values: unknown[] = [query.teamId];
  const add = (condition: string, value: unknown) => {
    where.push(condition);
    values.push(value);
  };
  if (query.cursor) add("id < ?", query.cursor);
  if (query.actorId) add("actor_id = ?", query.actorId);
  if (query.actorType) add("actor_type = ?", query.actorType);
  if (query.action?.endsWith(".")) add("starts_with(action, ?)", query.action);
  else if (query.action) add("action = ?", query.action);
  if (query.targetType) add("target_type = ?", query.targetType);
  if (query.targetId) add("target_id = ?", query.targetId);
  if (query.from) add("at >= ?", query.from);
  if (query.to) add("at < ?", query.to);
  values.push(query.limit);
  const rows = await em
    .getConnection()
    .execute<AuditRow[]>(`select * from audit_log where ${where.join(" and ")} order by team_id, id desc limit ?`, values, "all", em.getTransactionContext());
  return rows.map(toEntry);
}

/** Deletes up to `limit` entries older than `days` days (AUDIT_RETENTION_DAYS, by the upkeep job); answers how many. */
export async function deleteAgedAuditEntries(pool: Pool, days: number, limit: number): Promise<number> {
  const result = await pool.query({
    name: "rehook_age_audit_log",
    text: `delete from audit_log where ctid = any(array(select ctid from audit_log where at < now() - make_interval(days => $1) limit $2))`,
    values: [days, limit],
  });
  return result.rowCount ?? 0;
}
