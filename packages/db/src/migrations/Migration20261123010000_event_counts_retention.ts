import { Migration } from "@mikro-orm/migrations";

/**
 * Counts of events per endpoint and status, kept as deltas: every statement that adds,
 * changes or removes events appends rows (+n, -n) here, and a job folds them into one row
 * per (endpoint, status) every few seconds. Appending never waits on another writer's lock,
 * so captures on one endpoint from several instances do not queue on a counter row; a
 * total is the sum of a handful of rows. Filled from the events there are at upgrade.
 * Endpoints get a retention override (null: RETENTION_DAYS; 0: keep for ever).
 */
export class Migration20261123010000_event_counts_retention extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table "event_counts" (
        "id" bigserial primary key,
        "endpoint_id" uuid not null,
        "status" text not null,
        "n" bigint not null
      );`);
    this.addSql(`create index "event_counts_endpoint_id_index" on "event_counts" ("endpoint_id");`);
    this.addSql(`insert into "event_counts" ("endpoint_id", "status", "n") select "endpoint_id", "status", count(*) from "events" group by 1, 2;`);
    this.addSql(`alter table "endpoints" add column "retention_days" int null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "endpoints" drop column "retention_days";`);
    this.addSql(`drop table if exists "event_counts";`);
  }
}
