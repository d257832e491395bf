import type { EntityManager } from "@mikro-orm/postgresql";
import {
  ALERT_SEND_WINDOW_MS,
  ALERT_WINDOW_MINUTES,
  isUuid,
  judgeAlertSend,
  uuidv7Floor,
  type AlertSendLimits,
  type AlertSendRefusal,
  type MeasuredRate,
  type ThresholdTrigger,
} from "@rehook/core";
import { AlertRuleEntity, type AlertRule } from "../entities/index.js";
import { withTransaction, type Pool } from "../pool.js";
import type { ChannelOutcome } from "./notifications.js";

/** An array parameter as PostgreSQL's literal (the ORM's placeholders would expand a JS array into a list); ids only, nothing to quote. */
const pgArray = (values: readonly string[] | undefined) => (values === undefined ? null : `{${values.join(",")}}`);

/** The job that posts a rule's due alerts (its key: the rule's id), one instance at a time per rule. */
export const ALERT_JOB = "alert";

/** Enqueues the alert job of each rule a `rules` query names (its rule_id column), inside a larger statement. */
export const enqueueAlertJobs = (rules: string) => `
insert into jobs (kind, key, run_at)
select '${ALERT_JOB}', r.id::text, greatest(now(), r.next_post_at)
from (select distinct rule_id from (${rules}) x) q join alert_rules r on r.id = q.rule_id
on conflict (kind, key) do update set again = true`;

/**
 * The completion statement's part (see deliveries.ts COMPLETE), core's completionAlerts: an
 * alert for every event that reached failed (`moved`) and every breaker that tripped
 * (`judged`), for each enabled, unpaused rule of the team that watches it (the endpoint's, or
 * every endpoint), in the same statement. A pause carries the count and reason that tripped it
 * (detail), so the message says what the card and the audit log say, whenever it is posted.
 */
export const COMPLETION_ALERTS_CTE = `
alerted as (
  insert into alert_outbox (rule_id, kind, event_id, endpoint_id, destination_id, detail)
  select r.id, 'delivery_failed', m.id, m.endpoint_id, null::uuid, null::jsonb
  from moved m join endpoints p on p.id = m.endpoint_id
  join alert_rules r on r.team_id = p.team_id and r.trigger = 'delivery_failed'
  where m.status = 'failed' and m.was <> 'failed' and r.enabled and r.paused_reason is null and (r.endpoint_id is null or r.endpoint_id = m.endpoint_id)
  union all
  select r.id, 'destination_paused', j.tripped_by, j.endpoint_id, j.destination_id,
         jsonb_build_object('consecutive_failures', j.consecutive, 'reason', j.reason)
  from judged j join alert_rules r on r.team_id = j.team_id and r.trigger = 'destination_paused'
  where j.trips and r.enabled and r.paused_reason is null and (r.endpoint_id is null or r.endpoint_id = j.endpoint_id)
  returning rule_id
),
alert_jobs as (${enqueueAlertJobs("select rule_id from alerted")})`;

export async function listAlertRules(em: EntityManager, teamId: string): Promise<AlertRule[]> {
  return em.find(AlertRuleEntity, { team: teamId }, { orderBy: { createdAt: "asc", id: "asc" } });
}

export async function findAlertRule(em: EntityManager, teamId: string, id: string): Promise<AlertRule | null> {
  if (!isUuid(id)) return null;
  return em.findOne(AlertRuleEntity, { id, team: teamId });
}

export async function countAlertRules(em: EntityManager, teamId: string): Promise<number> {
  return em.count(AlertRuleEntity, { team: teamId });
}

/** Raises an alert for every enabled rule of the team watching this trigger (and endpoint), on `em`'s transaction. */
export async function raiseAlerts(
  em: EntityManager,
  alert: { teamId: string; kind: string; endpointId: string | null; eventId?: string | null; destinationId?: string | null; detail?: Record<string, unknown> | null; ruleIds?: string[] },
): Promise<number> {
  const rows = await em.execute<Array<{ rule_id: string }>>(
    `with alerted as (
       insert into alert_outbox (rule_id, kind, event_id, endpoint_id, destination_id, detail)
       select r.id, ?, ?::uuid, ?::uuid, ?::uuid, ?::jsonb from alert_rules r
       where r.team_id = ? and r.trigger = ? and r.enabled and r.paused_reason is null
         and (r.endpoint_id is null or r.endpoint_id = ?::uuid)
         and (?::uuid[] is null or r.id = any(?::uuid[]))
       returning rule_id
     ), jobs_enqueued as (${enqueueAlertJobs("select rule_id from alerted")})
     select rule_id from alerted`,
    [
      alert.kind,
      alert.eventId ?? null,
      alert.endpointId,
      alert.destinationId ?? null,
      alert.detail ? JSON.stringify(alert.detail) : null,
      alert.teamId,
      alert.kind,
      alert.endpointId,
      pgArray(alert.ruleIds),
      pgArray(alert.ruleIds),
    ],
  );
  return rows.length;
}

/** A rule that may post now: enabled and not paused. */
export interface PostableRule {
  id: string;
  teamId: string;
  name: string;
  trigger: string;
  channel: string;
  target: string;
  secret: string | null;
  failures: number;
  /** A failed post's last outbox id, while its retry is due: the retry sends exactly those rows. */
  retryThrough: string | null;
}

export async function postableAlertRule(pool: Pool, ruleId: string): Promise<PostableRule | null> {
  const result = await pool.query<{ id: string; team_id: string; name: string; trigger: string; channel: string; target: string; secret: string | null; failures: number; retry_through: string | null }>(
    "select id, team_id, name, trigger, channel, target, secret, failures, retry_through from alert_rules where id = $1 and enabled and paused_reason is null",
    [ruleId],
  );
  const row = result.rows[0];
  return row
    ? { id: row.id, teamId: row.team_id, name: row.name, trigger: row.trigger, channel: row.channel, target: row.target, secret: row.secret, failures: row.failures, retryThrough: row.retry_through }
    : null;
}

/** One due alert: its outbox row and what its message shows, read as it is now. */
export interface DueAlert {
  outboxId: string;
  kind: string;
  eventId: string | null;
  endpointId: string | null;
  endpointName: string | null;
  eventType: string | null;
  responseStatus: number | null;
  error: string | null;
  attempts: number | null;
  destinationName: string | null;
  pausedReason: string | null;
  detail: Record<string, unknown> | null;
  at: Date;
}

/** The rule's due alerts, oldest first: at most `limit`, none after outbox id `through` (a retry's rows) when given. */
export async function dueAlerts(pool: Pool, ruleId: string, limit: number, through: string | null = null): Promise<DueAlert[]> {
  const result = await pool.query<{
    id: string;
    kind: string;
    event_id: string | null;
    endpoint_id: string | null;
    endpoint_name: string | null;
    event_type: string | null;
    response_status: number | null;
    error: string | null;
    attempts: number | null;
    destination_name: string | null;
    paused_reason: string | null;
    detail: Record<string, unknown> | null;
    at: Date;
  }>({
    name: "rehook_due_alerts",
    text: `
      select o.id, o.kind, o.event_id, o.endpoint_id, p.name as endpoint_name, e.event_type, e.response_status, e.error,
             (select sum(d.attempts)::int from deliveries d where d.event_id = o.event_id) as attempts,
             -- The failed (or paused) destination: the one named, else the event's first failed delivery's.
             coalesce(n.name, (select x.name from deliveries d join destinations x on x.id = d.destination_id
                               where d.event_id = o.event_id and d.status = 'failed' order by x.position limit 1)) as destination_name,
             n.paused_reason,
             o.detail, coalesce(e.completed_at, o.created_at) as at
      from alert_outbox o
      left join endpoints p on p.id = o.endpoint_id
      left join events e on e.id = o.event_id
      left join destinations n on n.id = o.destination_id
      where o.rule_id = $1 and ($3::bigint is null or o.id <= $3::bigint)
      order by o.id
      limit $2`,
    values: [ruleId, limit, through],
  });
  return result.rows.map((row) => ({
    outboxId: row.id,
    kind: row.kind,
    eventId: row.event_id,
    endpointId: row.endpoint_id,
    endpointName: row.endpoint_name,
    eventType: row.event_type,
    responseStatus: row.response_status,
    error: row.error,
    attempts: row.attempts,
    destinationName: row.destination_name,
    pausedReason: row.paused_reason,
    detail: row.detail,
    at: new Date(row.at),
  }));
}

/**
 * Stores how a post to a rule's channel ended (one transaction), and the result the Settings
 * page shows. A retry keeps `retryThrough` (the last outbox id of the rows to send again, or
 * null to read afresh); any other outcome forgets it.
 */
export async function finishAlertRule(pool: Pool, ruleId: string, outcome: ChannelOutcome, result: { ok: boolean; text: string } | null, retryThrough: string | null = null): Promise<void> {
  await withTransaction(pool, async (client) => {
    if (outcome.kind === "done") {
      await client.query("delete from alert_outbox where id = any($1::bigint[])", [outcome.outboxIds]);
      await client.query("update alert_rules set failures = 0, retry_through = null, next_post_at = now() + make_interval(secs => $2::float8 / 1000) where id = $1", [ruleId, outcome.nextInMs]);
    } else if (outcome.kind === "retry") {
      await client.query("update alert_rules set failures = $2, retry_through = $4, next_post_at = now() + make_interval(secs => $3::float8 / 1000) where id = $1", [
        ruleId,
        outcome.failures,
        outcome.nextInMs,
        retryThrough,
      ]);
    } else {
      await client.query("delete from alert_outbox where rule_id = $1", [ruleId]);
      await client.query("update alert_rules set paused_reason = $2, failures = 0, retry_through = null where id = $1", [ruleId, outcome.reason]);
    }
    if (result) await client.query("update alert_rules set last_result_at = now(), last_result_ok = $1, last_result = $2 where id = $3", [result.ok, result.text.slice(0, 500), ruleId]);
  });
}

/** The last post's result, as the Settings page shows it ("Send a test" writes it too), on `em`'s transaction. */
export async function recordAlertResult(em: EntityManager, ruleId: string, result: { ok: boolean; text: string }): Promise<void> {
  await em.execute("update alert_rules set last_result_at = now(), last_result_ok = ?, last_result = ? where id = ?", [result.ok, result.text.slice(0, 500), ruleId]);
}

/** A threshold rule the watch job measures. */
export interface ThresholdRule {
  id: string;
  teamId: string;
  trigger: ThresholdTrigger;
  threshold: number;
  endpointId: string | null;
}

export async function thresholdRules(pool: Pool): Promise<ThresholdRule[]> {
  const result = await pool.query<{ id: string; team_id: string; trigger: ThresholdTrigger; threshold: number; endpoint_id: string | null }>(
    "select id, team_id, trigger, threshold, endpoint_id from alert_rules where enabled and paused_reason is null and trigger in ('health_low', 'signature_invalid_rate') and threshold is not null order by id",
  );
  return result.rows.map((row) => ({ id: row.id, teamId: row.team_id, trigger: row.trigger, threshold: row.threshold, endpointId: row.endpoint_id }));
}

/**
 * The rule's endpoints' rates over the last ALERT_WINDOW_MINUTES: deliveries' final outcomes
 * from the minute rollups (health), or the verified captures' signature checks (invalid).
 */
export async function measuredRates(pool: Pool, rule: ThresholdRule, nowMs: number): Promise<MeasuredRate[]> {
  const since = new Date(nowMs - ALERT_WINDOW_MINUTES * 60_000);
  const result =
    rule.trigger === "health_low"
      ? await pool.query<{ endpoint_id: string; part: string; total: string }>(
          `select m.endpoint_id, sum(m.delivered) as part, sum(m.delivered + m.failed) as total
           from event_minutes m join endpoints p on p.id = m.endpoint_id
           where p.team_id = $1 and ($2::uuid is null or m.endpoint_id = $2) and m.minute >= date_trunc('minute', $3::timestamptz)
           group by m.endpoint_id`,
          [rule.teamId, rule.endpointId, since],
        )
      : await pool.query<{ endpoint_id: string; part: string; total: string }>(
          `select e.endpoint_id, count(*) filter (where e.signature = 'invalid') as part, count(*) as total
           from events e join endpoints p on p.id = e.endpoint_id
           where p.team_id = $1 and ($2::uuid is null or e.endpoint_id = $2) and e.signature is not null and e.id >= $3::uuid
           group by e.endpoint_id`,
          [rule.teamId, rule.endpointId, uuidv7Floor(since.getTime())],
        );
  return result.rows.map((row) => ({ endpointId: row.endpoint_id, part: Number(row.part), total: Number(row.total) }));
}

/** A threshold rule's firing endpoints, locked for the update that follows (on `em`'s transaction). */
export async function lockFiring(em: EntityManager, ruleId: string): Promise<string[] | null> {
  const rows = await em.execute<Array<{ firing: string[] }>>("select firing from alert_rules where id = ? and enabled for update", [ruleId]);
  return rows[0]?.firing ?? null;
}

export async function saveFiring(em: EntityManager, ruleId: string, firing: string[]): Promise<void> {
  await em.execute("update alert_rules set firing = ?::text[] where id = ?", [pgArray(firing), ruleId]);
}

/** Endpoint names by id (a threshold alert's message). */
export async function endpointNames(em: EntityManager, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await em.execute<Array<{ id: string; name: string }>>("select id, name from endpoints where id = any(?::uuid[])", [pgArray(ids)]);
  return new Map(rows.map((row) => [row.id, row.name]));
}

/** The advisory lock every reservation of the send ledger takes: the per-user and server-wide counts span teams. */
const ALERT_SENDS_LOCK_ID = 7_301_208_010;

/** One send to count: whose team, who asked (null: an alert), what was tested (a rule's id, "notifications:<team id>"). */
export interface AlertSendReservation {
  teamId: string;
  userId: string | null;
  subject: string;
  test: boolean;
  email: boolean;
  nowMs: number;
}

/**
 * Counts one send of alert rules (a test, an email, or both) before it goes, or says which
 * limit refuses it (see judgeAlertSend). Every reservation takes one transaction-scoped
 * advisory lock, on every instance, so reservations queue and each sees what the one before
 * it wrote: the user's and the server's counts span teams, so a lock on the team's row would
 * not do. Tests and emails are a few per minute at most, so one queue costs nothing. The
 * clock is the caller's (`nowMs`); the ledger's rows older than the window are deleted here,
 * all of them, whoever they were sent for.
 */
export async function reserveAlertSend(pool: Pool, request: AlertSendReservation, limits: AlertSendLimits): Promise<AlertSendRefusal | null> {
  if (!request.test && !request.email) return null;
  const now = new Date(request.nowMs);
  return withTransaction(pool, async (client) => {
    await client.query("select pg_advisory_xact_lock($1)", [ALERT_SENDS_LOCK_ID]);
    // A team deleted meanwhile sends nothing: its rules went with it. The key share lock keeps it until the row is in.
    const team = await client.query("select 1 from teams where id = $1 for key share", [request.teamId]);
    if (team.rowCount === 0) return { limit: "team_emails", retryAfterMs: ALERT_SEND_WINDOW_MS };
    await client.query("delete from alert_sends where sent_at <= $1", [new Date(request.nowMs - ALERT_SEND_WINDOW_MS)]);
    // What any limit of this send counts: the team's, the user's, the subject's and every email (at most the server's cap).
    const ledger = await client.query<{ team: boolean; user: boolean; subject: boolean; test: boolean; email: boolean; sent_at: Date }>(
      `select team_id is not distinct from $1::uuid as team, user_id is not distinct from $2::uuid and $2::uuid is not null as user,
              subject is not distinct from $3 as subject, test, email, sent_at
         from alert_sends where team_id = $1::uuid or user_id = $2::uuid or subject = $3 or email`,
      [request.teamId, request.userId, request.subject],
    );
    const times = (keep: (row: (typeof ledger.rows)[number]) => boolean) => ledger.rows.filter(keep).map((row) => row.sent_at.getTime());
    const lastTests = times((row) => row.subject && row.test);
    const refusal = judgeAlertSend(
      {
        test: request.test,
        email: request.email,
        nowMs: request.nowMs,
        lastTestAtMs: lastTests.length > 0 ? Math.max(...lastTests) : null,
        testsSentAtMs: times((row) => row.team && row.test),
        userTestsSentAtMs: times((row) => row.user && row.test),
        emailsSentAtMs: times((row) => row.team && row.email),
        serverEmailsSentAtMs: times((row) => row.email),
      },
      limits,
    );
    if (refusal) return refusal;
    await client.query("insert into alert_sends (team_id, user_id, subject, test, email, sent_at) values ($1, $2, $3, $4, $5, $6)", [
      request.teamId,
      request.userId,
      request.subject,
      request.test,
      request.email,
      now,
    ]);
    return null;
  });
}
