import { Migration } from "@mikro-orm/migrations";

/**
 * Chat notifications: an outbox row is written in the same statement as the status change
 * it announces, so a crash cannot lose it; the notifier deletes it once posted. The user's
 * settings row carries the per-URL pacing (next_post_at), the claim of the instance posting
 * (lease_until) and the count of consecutive failed posts.
 */
export class Migration20261121040000_notification_outbox extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table "notification_outbox" (
        "id" bigserial primary key,
        "user_id" uuid not null,
        "event_id" uuid not null,
        "trigger" text not null,
        "created_at" timestamptz(3) not null default now()
      );`);
    this.addSql(`create index "notification_outbox_user_id_index" on "notification_outbox" ("user_id", "id");`);
    this.addSql(`alter table "notification_outbox" add constraint "notification_outbox_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "notification_settings" add column "next_post_at" timestamptz(3) not null default now(), add column "lease_until" timestamptz(3) null, add column "failures" int not null default 0;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "notification_settings" drop column "next_post_at", drop column "lease_until", drop column "failures";`);
    this.addSql(`drop table if exists "notification_outbox" cascade;`);
  }
}
