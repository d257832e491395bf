import { Migration } from "@mikro-orm/migrations";

/**
 * What alert rules may send, decided by the database for every instance. `alert_sends` is
 * the ledger of the last hour's tests (every channel, alert rules and the team's chat hook)
 * and emails (alerts and tests): one row per send, with the team, the acting user (who pressed
 * "Send a test"; null for an alert) and what was tested (`subject`: a rule's id, or
 * `notifications:<team id>`), counted before the send under one lock for the whole ledger (see
 * reserveAlertSend), so two instances cannot both take the last slot. The rows outlive their
 * team and user (`on delete set null`) and their rule (`subject` is not a key): deleting a
 * team, or a rule, and making another frees no slot of the user's or the server's hour. Rows
 * older than the hour are deleted by the next reservation, whoever makes it.
 *
 * `retry_through` pins the outbox rows of a post that failed and will be retried: the retry
 * sends exactly those rows again (the same Standard Webhooks id, derived from them), and what
 * came due meanwhile goes in the next post.
 */
export class Migration20261208010000_alert_pacing extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "alert_rules" add column "retry_through" bigint null;`);
    this.addSql(`
      create table "alert_sends" (
        "id" bigserial primary key,
        "team_id" uuid null,
        "user_id" uuid null,
        "subject" text null,
        "test" boolean not null,
        "email" boolean not null,
        "sent_at" timestamptz(3) not null
      );`);
    this.addSql(`create index "alert_sends_sent_at_index" on "alert_sends" ("sent_at");`);
    this.addSql(`create index "alert_sends_team_id_index" on "alert_sends" ("team_id");`);
    this.addSql(`create index "alert_sends_user_id_index" on "alert_sends" ("user_id");`);
    this.addSql(`alter table "alert_sends" add constraint "alert_sends_team_id_foreign" foreign key ("team_id") references "teams" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "alert_sends" add constraint "alert_sends_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete set null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "alert_sends";`);
    this.addSql(`alter table "alert_rules" drop column "retry_through";`);
  }
}
