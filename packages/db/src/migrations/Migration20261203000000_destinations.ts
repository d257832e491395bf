import { Migration } from "@mikro-orm/migrations";

/**
 * Routing: an endpoint forwards to up to 20 destinations, each with its own URL, filter,
 * pace, order, retry policy and circuit breaker, and each captured event is delivered to
 * every destination its filter lets through. `deliveries` is forwarding's queue: one row per
 * event and matched destination, leased, retried and completed on its own; the event's
 * status sums its deliveries up.
 *
 * The upgrade keeps everything in flight:
 * - every endpoint's destination_url, retry policy and breaker state become its first
 *   destination (position 0);
 * - every pending event becomes a pending delivery to that destination, with its attempt
 *   count, lease and next attempt as they were, so a retry keeps its place and an attempt
 *   under way is not sent twice while its lease holds;
 * - a pending event whose endpoint has no destination any more (its URL was removed while
 *   it waited) fails, saying why, rather than waiting for ever.
 * Attempts stored before have no destination_id: they were made to the first destination.
 *
 * deliveries has no foreign keys, for the reason events has none (the capture statement
 * writes it; a per-row check would lock the referenced rows again for every capture);
 * endpoint purges, event deletes and retention remove its rows with their events.
 */
export class Migration20261203000000_destinations extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table "destinations" (
        "id" uuid not null,
        "endpoint_id" uuid not null,
        "position" int not null,
        "name" text not null,
        "url" text not null,
        "enabled" boolean not null default true,
        "filter" jsonb null,
        "rate_limit_per_second" int null,
        "ordered" boolean not null default false,
        "retry_max_attempts" int null,
        "retry_initial_delay_ms" int null,
        "retry_max_delay_ms" int null,
        "pause_after_failures" int null,
        "consecutive_failures" int not null default 0,
        "forwarding_paused_at" timestamptz(3) null,
        "paused_reason" text null,
        "rate_next_start_at" timestamptz null,
        "created_at" timestamptz(3) not null,
        "updated_at" timestamptz(3) not null,
        constraint "destinations_pkey" primary key ("id")
      );`);
    this.addSql(`create unique index "destinations_endpoint_id_position_unique" on "destinations" ("endpoint_id", "position");`);
    this.addSql(
      `alter table "destinations" add constraint "destinations_endpoint_id_foreign" foreign key ("endpoint_id") references "endpoints" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(`
      create table "deliveries" (
        "event_id" uuid not null,
        "destination_id" uuid not null,
        "endpoint_id" uuid not null,
        "status" text not null,
        "attempts" int not null default 0,
        "lease_expires_at" timestamptz(3) null,
        "next_attempt_at" timestamptz(3) null,
        "completed_at" timestamptz(3) null,
        constraint "deliveries_pkey" primary key ("event_id", "destination_id")
      );`);
    this.addSql(`alter table "deliveries" add constraint "deliveries_status_check" check ("status" in ('pending', 'delivered', 'failed'));`);
    // The claim's queue: each destination's pending deliveries, oldest first.
    this.addSql(`create index "deliveries_pending_index" on "deliveries" ("destination_id", "event_id") where "status" = 'pending';`);
    // "Retry failed" of an endpoint finds its failed deliveries without reading its delivered ones.
    this.addSql(`create index "deliveries_failed_index" on "deliveries" ("endpoint_id", "event_id") where "status" = 'failed';`);
    this.addSql(`alter table "delivery_attempts" add column "destination_id" uuid null;`);

    // Each endpoint's destination becomes its first destination (the host names it).
    this.addSql(`
      insert into "destinations" ("id", "endpoint_id", "position", "name", "url", "retry_max_attempts", "retry_initial_delay_ms", "retry_max_delay_ms",
                                  "pause_after_failures", "consecutive_failures", "forwarding_paused_at", "paused_reason", "created_at", "updated_at")
      select gen_random_uuid(), p.id, 0, coalesce(nullif(substring(p.destination_url from '^[a-zA-Z][a-zA-Z0-9+.-]*://(?:[^@/?#]*@)?([^/?#:]+)'), ''), 'Destination'),
             p.destination_url, p.retry_max_attempts, p.retry_initial_delay_ms, p.retry_max_delay_ms, p.pause_after_failures, p.consecutive_failures,
             p.forwarding_paused_at, p.paused_reason, p.created_at, now()
      from "endpoints" p where p.destination_url is not null;`);
    this.addSql(`
      insert into "deliveries" ("event_id", "destination_id", "endpoint_id", "status", "attempts", "lease_expires_at", "next_attempt_at")
      select e.id, d.id, e.endpoint_id, 'pending', e.attempts, e.lease_expires_at, e.next_attempt_at
      from "events" e join "destinations" d on d.endpoint_id = e.endpoint_id and d.position = 0
      where e.status = 'pending';`);
    this.addSql(`
      with stranded as (
        update "events" e set status = 'failed', completed_at = now(), next_attempt_at = null,
               error = 'the endpoint had no destination when routing was introduced; add one and retry'
        where e.status = 'pending' and not exists (select 1 from "destinations" d where d.endpoint_id = e.endpoint_id)
        returning e.endpoint_id
      )
      insert into "event_counts" ("endpoint_id", "status", "n")
      select endpoint_id, m.status, m.delta * count(*) from stranded, (values ('failed', 1), ('pending', -1)) as m(status, delta)
      group by endpoint_id, m.status, m.delta;`);

    this.addSql(`drop index "events_pending_endpoint_index";`);
    this.addSql(`alter table "events" drop column "lease_expires_at", drop column "attempts";`);
    this.addSql(`
      alter table "endpoints"
        drop column "destination_url", drop column "retry_max_attempts", drop column "retry_initial_delay_ms", drop column "retry_max_delay_ms",
        drop column "pause_after_failures", drop column "consecutive_failures", drop column "forwarding_paused_at", drop column "paused_reason";`);
  }

  override async down(): Promise<void> {
    this.addSql(`
      alter table "endpoints"
        add column "destination_url" text null, add column "retry_max_attempts" int null, add column "retry_initial_delay_ms" int null,
        add column "retry_max_delay_ms" int null, add column "pause_after_failures" int null, add column "consecutive_failures" int not null default 0,
        add column "forwarding_paused_at" timestamptz(3) null, add column "paused_reason" text null;`);
    this.addSql(`
      update "endpoints" p set destination_url = d.url, retry_max_attempts = d.retry_max_attempts, retry_initial_delay_ms = d.retry_initial_delay_ms,
             retry_max_delay_ms = d.retry_max_delay_ms, pause_after_failures = d.pause_after_failures, consecutive_failures = d.consecutive_failures,
             forwarding_paused_at = d.forwarding_paused_at, paused_reason = d.paused_reason
      from "destinations" d where d.endpoint_id = p.id and d.position = (select min(position) from "destinations" f where f.endpoint_id = p.id);`);
    this.addSql(`alter table "events" add column "lease_expires_at" timestamptz(3) null, add column "attempts" int not null default 0;`);
    this.addSql(`update "events" e set attempts = (select count(*) from "delivery_attempts" a where a.event_id = e.id) where e.status <> 'captured';`);
    this.addSql(`create index "events_pending_endpoint_index" on "events" ("endpoint_id", "id") where "status" = 'pending';`);
    this.addSql(`alter table "delivery_attempts" drop column "destination_id";`);
    this.addSql(`drop table if exists "deliveries";`);
    this.addSql(`drop table if exists "destinations";`);
  }
}
