import { Migration } from "@mikro-orm/migrations";

/**
 * Alert rules: per team, what to be told about (trigger, with a threshold for the rates, for
 * one endpoint or all) and where (a channel and its target). Each rule is paced and paused on
 * its own, as chat notifications are: next_post_at, failures and paused_reason, plus the last
 * post's result for the Settings page. `firing` holds the endpoints a threshold rule has
 * alerted about and that have not recovered yet, so a rate that stays bad alerts once.
 * alert_outbox rows are written in the transaction of what they announce (the completion
 * statement for failed deliveries and tripped breakers) and deleted once posted.
 */
export class Migration20261206000000_alert_rules extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table "alert_rules" (
        "id" uuid not null,
        "team_id" uuid not null,
        "name" text not null,
        "trigger" text not null,
        "threshold" int null,
        "endpoint_id" uuid null,
        "channel" text not null,
        "target" text not null,
        "secret" text null,
        "enabled" boolean not null default true,
        "next_post_at" timestamptz(3) not null default now(),
        "failures" int not null default 0,
        "paused_reason" text null,
        "last_result_at" timestamptz(3) null,
        "last_result_ok" boolean null,
        "last_result" text null,
        "firing" text[] not null default '{}',
        "created_at" timestamptz(3) not null default now(),
        constraint "alert_rules_pkey" primary key ("id")
      );`);
    this.addSql(`create index "alert_rules_team_id_trigger_index" on "alert_rules" ("team_id", "trigger");`);
    this.addSql(`alter table "alert_rules" add constraint "alert_rules_team_id_foreign" foreign key ("team_id") references "teams" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "alert_rules" add constraint "alert_rules_endpoint_id_foreign" foreign key ("endpoint_id") references "endpoints" ("id") on update cascade on delete cascade;`);
    this.addSql(`create index "alert_rules_endpoint_id_index" on "alert_rules" ("endpoint_id");`);
    this.addSql(`
      create table "alert_outbox" (
        "id" bigserial primary key,
        "rule_id" uuid not null,
        "kind" text not null,
        "event_id" uuid null,
        "endpoint_id" uuid null,
        "destination_id" uuid null,
        "detail" jsonb null,
        "created_at" timestamptz(3) not null default now()
      );`);
    this.addSql(`create index "alert_outbox_rule_id_index" on "alert_outbox" ("rule_id", "id");`);
    this.addSql(`alter table "alert_outbox" add constraint "alert_outbox_rule_id_foreign" foreign key ("rule_id") references "alert_rules" ("id") on update cascade on delete cascade;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "alert_outbox";`);
    this.addSql(`drop table if exists "alert_rules";`);
  }
}
