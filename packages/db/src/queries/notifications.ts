import type { NotificationTrigger, NotifiedEvent, PausedEndpoint } from "@rehook/core";
import { withTransaction, type Pool } from "../pool.js";

/** A user's chat hook, when notifications may be posted to it now. */
export interface NotificationChannel {
  teamId: string;
  webhookUrl: string;
  failures: number;
}

/** The user's hook if notifications are on, not paused, and it has a URL; else null (what is due waits). */
export async function postableChannel(pool: Pool, teamId: string): Promise<NotificationChannel | null> {
  const result = await pool.query<{ webhook_url: string; failures: number }>({
    name: "rehook_postable_channel",
    text: `select webhook_url, failures from notification_settings where team_id = $1 and enabled and paused_reason is null and webhook_url is not null`,
    values: [teamId],
  });
  const row = result.rows[0];
  return row ? { teamId, webhookUrl: row.webhook_url, failures: row.failures } : null;
}

/** One due notification: its outbox row and what its message shows (`found`: the event still exists). */
export interface DueNotification {
  outboxId: string;
  found: boolean;
  event: NotifiedEvent;
  /** Set for a tripped circuit breaker (outbox trigger "paused", written with the event that tripped it). */
  paused: (PausedEndpoint & { endpointId: string }) | null;
}

export async function dueNotifications(pool: Pool, teamId: string, limit: number): Promise<DueNotification[]> {
  const result = await pool.query<{
    id: string;
    trigger: NotificationTrigger | "paused";
    event_id: string;
    endpoint_id: string | null;
    paused_reason: string | null;
    queued_at: Date;
    found: boolean;
    source: string | null;
    event_type: string | null;
    endpoint_name: string | null;
    destination_url: string | null;
    latency_ms: number | null;
    response_status: number | null;
    error: string | null;
    at: Date;
  }>({
    name: "rehook_due_notifications",
    text: `
      select o.id, o.trigger, o.event_id, p.id as endpoint_id,
             -- The paused destination's reason (its name first when the endpoint has several); null once resumed.
             (select case when (select count(*) from destinations a where a.endpoint_id = p.id) > 1 then d.name || ': ' || d.paused_reason else d.paused_reason end
              from destinations d where d.endpoint_id = p.id and d.forwarding_paused_at is not null order by d.position limit 1) as paused_reason,
             o.created_at as queued_at, e.id is not null as found, e.source, e.event_type, p.name as endpoint_name,
             e.destination_url, e.latency_ms, e.response_status, e.error, coalesce(e.completed_at, e.received_at, o.created_at) as at
      from notification_outbox o
      left join events e on e.id = o.event_id
      left join endpoints p on p.id = e.endpoint_id
      where o.team_id = $1
      order by o.id
      limit $2`,
    values: [teamId, limit],
  });
  return result.rows.map((row) => ({
    outboxId: row.id,
    // A pause the owner already resumed is not announced any more.
    found: row.found && (row.trigger !== "paused" || row.paused_reason !== null),
    paused:
      row.trigger === "paused" && row.endpoint_id && row.paused_reason !== null
        ? {
            endpointId: row.endpoint_id,
            endpointName: row.endpoint_name ?? "deleted endpoint",
            destinationUrl: row.destination_url,
            reason: row.paused_reason,
            at: new Date(row.queued_at),
          }
        : null,
    event: {
      id: row.event_id,
      trigger: row.trigger === "paused" ? "failed" : row.trigger,
      source: row.source ?? "unknown",
      eventType: row.event_type ?? "unknown",
      endpointName: row.endpoint_name ?? "deleted endpoint",
      destinationUrl: row.destination_url,
      latencyMs: row.latency_ms,
      responseStatus: row.response_status,
      error: row.error,
      at: new Date(row.at),
    },
  }));
}

/** How a post to a user's chat hook ended, and what that means for what is due. */
export type ChannelOutcome =
  /** Posted (or given up on): these outbox rows are done; the next post waits `pauseMs`. */
  | { kind: "done"; outboxIds: string[]; nextInMs: number; lastError: string | null }
  /** Try these again later (429, 5xx, network): nothing is deleted. */
  | { kind: "retry"; nextInMs: number; failures: number; lastError: string | null }
  /** The hook is dead: pause notifications until a new URL is saved; drop what is due. */
  | { kind: "pause"; reason: string; lastError: string };

/** Stores the outcome of a post (one transaction). */
export async function finishChannel(pool: Pool, teamId: string, outcome: ChannelOutcome): Promise<void> {
  await withTransaction(pool, async (client) => {
    if (outcome.kind === "done") {
      await client.query("delete from notification_outbox where id = any($1::bigint[])", [outcome.outboxIds]);
      await client.query(
        `update notification_settings set failures = 0, last_error = $2,
           next_post_at = now() + make_interval(secs => $3::float8 / 1000) where team_id = $1`,
        [teamId, outcome.lastError, outcome.nextInMs],
      );
    } else if (outcome.kind === "retry") {
      await client.query(
        `update notification_settings set failures = $2, last_error = coalesce($3, last_error),
           next_post_at = now() + make_interval(secs => $4::float8 / 1000) where team_id = $1`,
        [teamId, outcome.failures, outcome.lastError, outcome.nextInMs],
      );
    } else {
      await client.query("delete from notification_outbox where team_id = $1", [teamId]);
      await client.query("update notification_settings set failures = 0, paused_reason = $2, last_error = $3 where team_id = $1", [
        teamId,
        outcome.reason,
        outcome.lastError,
      ]);
    }
  });
}
