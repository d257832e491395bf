import { Migration } from "@mikro-orm/migrations";

/**
 * Fan-out carried through history and resolution (issue 42's shared schema).
 *
 * - replay_attempts.destination_id: the endpoint destination a replay went to (null: a
 *   staging, local or custom URL, which is no destination of the endpoint). No foreign key:
 *   deleting a destination keeps its replays' history (their URL is stored beside).
 * - replay_attempts.local_via: how a local replay reached the developer's machine: 'browser'
 *   (the dashboard's browser sent it) or 'listen' (a `rehook listen` forwarded it). Null for
 *   every other replay and for local replays recorded before this migration (unknown).
 * - deliveries.resolved_*: a failed delivery is resolved only by a later attempt to the same
 *   destination that delivered (a replay with resolved_by_replay_id), or by a member marking
 *   it resolved with a note (resolved_by_user_id, resolution_note). Never by a replay to any
 *   other URL.
 * - replay_jobs.target / destination_id: what a bulk replay sends each event to when it goes
 *   to the endpoint's destinations ('destination': one by id, 'matched': every destination the
 *   event matched, 'failed': only its failed deliveries); null for the URL environments.
 *
 * Upgrade: earlier "original" replays went to the endpoint's first destination's URL with the
 * event's sub-path: each is given the destination at the lowest position whose URL its own
 * begins with. Then each failed delivery is resolved by the earliest delivered replay to its
 * destination made after it failed. The old event-wide rule ("any delivered replay resolves")
 * is gone: events whose only delivered replays went elsewhere read unresolved again.
 */
export class Migration20261209000000_delivery_history extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "replay_attempts" add column "destination_id" uuid null, add column "local_via" text null;`);
    this.addSql(`alter table "replay_attempts" add constraint "replay_attempts_local_via_check" check ("local_via" in ('browser', 'listen'));`);
    this.addSql(`
      alter table "deliveries"
        add column "resolved_at" timestamptz(3) null,
        add column "resolved_by_replay_id" uuid null,
        add column "resolved_by_user_id" uuid null,
        add column "resolution_note" text null;`);
    this.addSql(`alter table "replay_jobs" add column "target" text null, add column "destination_id" uuid null;`);
    this.addSql(`alter table "replay_jobs" add constraint "replay_jobs_target_check" check ("target" in ('destination', 'matched', 'failed'));`);
    this.addSql(`
      update "replay_attempts" r set "destination_id" = (
        select t.id from "events" e join "destinations" t on t.endpoint_id = e.endpoint_id
        where e.id = r.event_id and left(r.destination_url, length(t.url)) = t.url
        order by t.position limit 1
      )
      where r.environment = 'original';`);
    this.addSql(`
      update "deliveries" d set "resolved_at" = x.replayed_at, "resolved_by_replay_id" = x.id
      from (
        select distinct on (f.event_id, f.destination_id) f.event_id, f.destination_id, r.id, r.replayed_at
        from "deliveries" f join "replay_attempts" r on r.event_id = f.event_id and r.destination_id = f.destination_id
        where f.status = 'failed' and r.status = 'delivered' and (f.completed_at is null or r.replayed_at >= f.completed_at)
        order by f.event_id, f.destination_id, r.replayed_at
      ) x
      where d.event_id = x.event_id and d.destination_id = x.destination_id;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "replay_jobs" drop column "target", drop column "destination_id";`);
    this.addSql(`alter table "deliveries" drop column "resolved_at", drop column "resolved_by_replay_id", drop column "resolved_by_user_id", drop column "resolution_note";`);
    this.addSql(`alter table "replay_attempts" drop column "destination_id", drop column "local_via";`);
  }
}
