import { Migration } from "@mikro-orm/migrations";

/**
 * What a team may send through its alert rules, decided by the database for every instance.
 * `alert_sends` is the ledger of the last hour's tests (every channel) and emails (alerts and
 * tests): one row per send, counted under a lock on the team's row before the send, so two
 * instances cannot both take the last slot. A rule's `last_test_at` paces its "Send a test".
 * Rows older than the hour are deleted by the next reservation of their team.
 *
 * `retry_through` pins the outbox rows of a post that failed and will be retried: the retry
 * sends exactly those rows again (the same Standard Webhooks id, derived from them), and what
 * came due meanwhile goes in the next post.
 */
export class Migration20261208010000_alert_pacing extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "alert_rules" add column "last_test_at" timestamptz(3) null, add column "retry_through" bigint null;`);
    this.addSql(`
      create table "alert_sends" (
        "id" bigserial primary key,
        "team_id" uuid not null,
        "test" boolean not null,
        "email" boolean not null,
        "sent_at" timestamptz(3) not null
      );`);
    this.addSql(`create index "alert_sends_team_id_sent_at_index" on "alert_sends" ("team_id", "sent_at");`);
    this.addSql(`alter table "alert_sends" add constraint "alert_sends_team_id_foreign" foreign key ("team_id") references "teams" ("id") on update cascade on delete cascade;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "alert_sends";`);
    this.addSql(`alter table "alert_rules" drop column "last_test_at", drop column "retry_through";`);
  }
}
