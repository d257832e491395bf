import { Migration } from "@mikro-orm/migrations";

/**
 * Deduplication at ingress. An endpoint may name a key (`dedup`: {key, window_s}); each
 * key's first event within the window is remembered in dedup_keys, keyed by endpoint and the
 * key's SHA-256, and a later event with the same key is stored as `duplicate` with
 * `duplicate_of` pointing at the first (stored and acknowledged, never forwarded). The
 * database decides which event came first, so instances agree without sharing memory.
 * dedup_keys has no foreign key to endpoints for the reason events have none (the capture
 * statement already holds the endpoint row; see the initial migration); an endpoint's keys
 * go with its purge, and expired keys with the upkeep job.
 */
export class Migration20261202000000_dedup extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "endpoints" add column "dedup" jsonb null;`);
    this.addSql(`alter table "events" add column "duplicate_of" uuid null;`);
    this.addSql(`alter table "events" drop constraint "events_status_check";`);
    this.addSql(`alter table "events" add constraint "events_status_check" check ("status" in ('captured', 'pending', 'delivered', 'failed', 'duplicate'));`);
    this.addSql(`
      create table "dedup_keys" (
        "endpoint_id" uuid not null,
        "key_hash" bytea not null,
        "first_event_id" uuid not null,
        "expires_at" timestamptz(3) not null,
        constraint "dedup_keys_pkey" primary key ("endpoint_id", "key_hash")
      );`);
    this.addSql(`create index "dedup_keys_expires_at_index" on "dedup_keys" ("expires_at");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "dedup_keys";`);
    this.addSql(`update "events" set "status" = 'captured' where "status" = 'duplicate';`);
    this.addSql(`alter table "events" drop constraint "events_status_check";`);
    this.addSql(`alter table "events" add constraint "events_status_check" check ("status" in ('captured', 'pending', 'delivered', 'failed'));`);
    this.addSql(`alter table "events" drop column "duplicate_of";`);
    this.addSql(`alter table "endpoints" drop column "dedup";`);
  }
}
