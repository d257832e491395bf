import { Migration } from "@mikro-orm/migrations";

/**
 * The job runner's table: background work that is not an event's delivery (chat posts,
 * bulk replays, purges). One row per (kind, key): enqueueing a job that exists marks it to
 * run again instead of adding a second. Claimed with a lease (lease_until) and a run-at time;
 * attempts counts the failed runs since the last success.
 * Bulk replays keep their cursor and bound, so another instance resumes one where it stopped.
 * Chat posts are claimed through jobs now, not through a lease on the settings row.
 */
export class Migration20261122300000_jobs extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table "jobs" (
        "id" bigserial primary key,
        "kind" text not null,
        "key" text not null,
        "payload" jsonb not null default '{}',
        "run_at" timestamptz(3) not null default now(),
        "lease_until" timestamptz(3) null,
        "attempts" int not null default 0,
        "again" boolean not null default false,
        "last_error" text null,
        "created_at" timestamptz(3) not null default now()
      );`);
    this.addSql(`create unique index "jobs_kind_key_unique" on "jobs" ("kind", "key");`);
    this.addSql(`create index "jobs_kind_run_at_index" on "jobs" ("kind", "run_at");`);
    this.addSql(`alter table "replay_jobs" add column "after_id" uuid null, add column "up_to" uuid null;`);
    this.addSql(`alter table "notification_settings" drop column "lease_until";`);
    // Work that was due under the old loops: chat posts waiting in the outbox, bulk replays marked running.
    this.addSql(`
      insert into jobs (kind, key, run_at)
      select distinct 'notify', o.user_id::text, now() from notification_outbox o
      on conflict do nothing;`);
    this.addSql(`update replay_jobs set state = 'interrupted', finished_at = now(), error = 'the server was upgraded while it ran; start the replay again for what is left' where state = 'running';`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "notification_settings" add column "lease_until" timestamptz(3) null;`);
    this.addSql(`alter table "replay_jobs" drop column "after_id", drop column "up_to";`);
    this.addSql(`drop table if exists "jobs" cascade;`);
  }
}
