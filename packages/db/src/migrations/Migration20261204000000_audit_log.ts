import { Migration } from "@mikro-orm/migrations";

/**
 * The audit log: one row per change (and per sign-in), written in the same transaction as
 * the change, so there is no change without its entry. Entries are never changed: a trigger
 * refuses every UPDATE, whoever sends it; only the upkeep job deletes them, once older than
 * AUDIT_RETENTION_DAYS (and a team's entries stay after the team is deleted, for the same
 * reason: they record who deleted it).
 * Ids are UUIDv7 (time-ordered): the list pages by id, newest first, within a team.
 * team_id is null for a sign-in that named no account (an unknown email): it belongs to no team.
 * Actor and target names are copied in, not joined: an entry keeps saying who did what after
 * the user, key or endpoint is gone or renamed.
 */
export class Migration20261204000000_audit_log extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table "audit_log" (
        "id" uuid not null,
        "at" timestamptz(3) not null default now(),
        "team_id" uuid null,
        "actor_type" text not null,
        "actor_id" text null,
        "actor_name" text null,
        "action" text not null,
        "target_type" text null,
        "target_id" text null,
        "target_name" text null,
        "changes" jsonb null,
        "request_id" text null,
        "ip" text null,
        constraint "audit_log_pkey" primary key ("id"),
        constraint "audit_log_actor_type_check" check ("actor_type" in ('user', 'api_key', 'cli', 'system'))
      );`);
    this.addSql(`create index "audit_log_team_index" on "audit_log" ("team_id", "id");`);
    this.addSql(`create index "audit_log_at_index" on "audit_log" ("at");`);
    this.addSql(`
      create function "audit_log_append_only"() returns trigger language plpgsql as $$
      begin
        raise exception 'audit log entries are never changed' using errcode = 'insufficient_privilege';
      end $$;`);
    this.addSql(`create trigger "audit_log_append_only" before update on "audit_log" for each row execute function "audit_log_append_only"();`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "audit_log";`);
    this.addSql(`drop function if exists "audit_log_append_only"();`);
  }
}
