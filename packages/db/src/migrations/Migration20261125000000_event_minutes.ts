import { Migration } from "@mikro-orm/migrations";

/**
 * Per-minute rollups for the dashboard's charts, kept as deltas like event_counts: the
 * capture statement appends (endpoint, minute, captured = n) for each batch, the completion
 * statement (endpoint, now's minute, delivered/failed = n) for final outcomes and one
 * latency_minutes row per histogram bucket its attempts fell in (bucket: index into
 * LATENCY_BUCKET_BOUNDS_MS in @rehook/core). Nothing on the hot path updates a shared row;
 * a job folds each minute's deltas into one row and drops minutes older than 8 days (the
 * longest chart is a week). The (minute) indexes let that job find the recent minutes and
 * the expired ones without reading the whole table.
 * Not filled from existing events (that would read a week of them): charts start empty.
 */
export class Migration20261125000000_event_minutes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table "event_minutes" (
        "id" bigserial primary key,
        "endpoint_id" uuid not null,
        "minute" timestamptz not null,
        "captured" int not null default 0,
        "delivered" int not null default 0,
        "failed" int not null default 0
      );`);
    this.addSql(`create index "event_minutes_endpoint_id_minute_index" on "event_minutes" ("endpoint_id", "minute");`);
    this.addSql(`create index "event_minutes_minute_index" on "event_minutes" ("minute");`);
    this.addSql(`
      create table "latency_minutes" (
        "id" bigserial primary key,
        "endpoint_id" uuid not null,
        "minute" timestamptz not null,
        "bucket" smallint not null,
        "n" int not null
      );`);
    this.addSql(`create index "latency_minutes_endpoint_id_minute_index" on "latency_minutes" ("endpoint_id", "minute");`);
    this.addSql(`create index "latency_minutes_minute_index" on "latency_minutes" ("minute");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "latency_minutes";`);
    this.addSql(`drop table if exists "event_minutes";`);
  }
}
