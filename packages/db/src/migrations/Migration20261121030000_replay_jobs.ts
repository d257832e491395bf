import { Migration } from "@mikro-orm/migrations";

/**
 * Bulk replays: one row per job, its progress updated as it runs so any instance can show
 * it. Replays are listed per user newest first, hence the index on the attempts' event and id.
 */
export class Migration20261121030000_replay_jobs extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table "replay_jobs" (
        "id" uuid not null,
        "user_id" uuid not null,
        "endpoint_id" uuid not null,
        "environment" text not null,
        "custom_url" text null,
        "status_filter" text null,
        "state" text not null default 'running',
        "total" int not null default 0,
        "done" int not null default 0,
        "delivered" int not null default 0,
        "failed" int not null default 0,
        "error" text null,
        "created_at" timestamptz(3) not null default now(),
        "updated_at" timestamptz(3) not null default now(),
        "finished_at" timestamptz(3) null,
        constraint "replay_jobs_pkey" primary key ("id")
      );`);
    this.addSql(`create index "replay_jobs_user_id_index" on "replay_jobs" ("user_id", "id");`);
    this.addSql(`alter table "replay_jobs" add constraint "replay_jobs_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "replay_jobs" add constraint "replay_jobs_endpoint_id_foreign" foreign key ("endpoint_id") references "endpoints" ("id") on update cascade on delete cascade;`);
    this.addSql(`create index "replay_jobs_endpoint_id_index" on "replay_jobs" ("endpoint_id");`);
    this.addSql(`alter table "replay_attempts" add column "job_id" uuid null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "replay_attempts" drop column "job_id";`);
    this.addSql(`drop table if exists "replay_jobs" cascade;`);
  }
}
