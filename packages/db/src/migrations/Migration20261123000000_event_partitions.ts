import { Migration } from "@mikro-orm/migrations";
import { uuidv7Floor } from "@rehook/core";

/** Midnight UTC after `ms`. */
const nextUtcMidnight = (ms: number) => {
  const day = new Date(ms);
  return Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate() + 1);
};

/**
 * Events become a table partitioned by ranges of id. Ids are UUIDv7 (their first 48 bits
 * are the capture's millisecond, and received_at is that millisecond), so a range of ids is
 * a range of time: one partition per UTC day, created ahead by the service
 * (packages/db/src/partitions.ts), dropped whole when retention has passed it. The primary
 * key stays the id alone, so replay and delivery attempts keep their foreign keys.
 *
 * An existing table with events is not copied: it becomes the first partition, of every id
 * before the next midnight (one scan to check that, no rewrite), and ages out like any other
 * once its newest day has passed retention. An empty one is dropped. A default partition takes ids no daily partition covers
 * (a clock far ahead), so a capture never fails for want of a partition.
 */
export class Migration20261123000000_event_partitions extends Migration {
  override async up(): Promise<void> {
    const firstBound = uuidv7Floor(nextUtcMidnight(Date.now()));
    this.addSql(`alter table "replay_attempts" drop constraint "replay_attempts_event_id_foreign";`);
    this.addSql(`alter table "delivery_attempts" drop constraint "delivery_attempts_event_id_foreign";`);
    this.addSql(`alter table "events" rename to "events_legacy";`);
    this.addSql(`alter index "events_pkey" rename to "events_legacy_pkey";`);
    this.addSql(`alter index "events_endpoint_id_id_index" rename to "events_legacy_endpoint_id_id_index";`);
    this.addSql(`alter index "events_pending_endpoint_index" rename to "events_legacy_pending_endpoint_index";`);
    this.addSql(`create table "events" (like "events_legacy" including defaults including constraints) partition by range ("id");`);
    this.addSql(`alter table "events" add constraint "events_pkey" primary key ("id");`);
    this.addSql(`create index "events_endpoint_id_id_index" on "events" ("endpoint_id", "id");`);
    this.addSql(`create index "events_pending_endpoint_index" on "events" ("endpoint_id", "id") where "status" = 'pending';`);
    this.addSql(`alter table "events" attach partition "events_legacy" for values from (minvalue) to ('${firstBound}');`);
    // A new database has nothing to keep: without the legacy partition, past days can have partitions of their own.
    this.addSql(`
      do $$ begin
        if not exists (select 1 from "events_legacy") then
          alter table "events" detach partition "events_legacy";
          drop table "events_legacy";
        end if;
      end $$;`);
    this.addSql(`create table "events_default" partition of "events" default;`);
    // Each listing filter has an index in the order a page reads it: an endpoint's newest first.
    this.addSql(`create index "events_endpoint_status_index" on "events" ("endpoint_id", "status", "id");`);
    this.addSql(`create index "events_endpoint_source_index" on "events" ("endpoint_id", "source", "id");`);
    this.addSql(`create index "events_endpoint_event_type_index" on "events" ("endpoint_id", "event_type", "id");`);
    this.addSql(`alter table "replay_attempts" add constraint "replay_attempts_event_id_foreign" foreign key ("event_id") references "events" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "delivery_attempts" add constraint "delivery_attempts_event_id_foreign" foreign key ("event_id") references "events" ("id") on update cascade on delete cascade;`);
  }

  override async down(): Promise<void> {
    // Back to one plain table: the partitions' rows are copied into it.
    this.addSql(`alter table "replay_attempts" drop constraint "replay_attempts_event_id_foreign";`);
    this.addSql(`alter table "delivery_attempts" drop constraint "delivery_attempts_event_id_foreign";`);
    this.addSql(`alter table "events" rename to "events_partitioned";`);
    this.addSql(`alter index "events_pkey" rename to "events_partitioned_pkey";`);
    this.addSql(`alter index "events_endpoint_id_id_index" rename to "events_partitioned_endpoint_id_id_index";`);
    this.addSql(`alter index "events_pending_endpoint_index" rename to "events_partitioned_pending_endpoint_index";`);
    this.addSql(`create table "events" (like "events_partitioned" including defaults including constraints);`);
    this.addSql(`insert into "events" select * from "events_partitioned";`);
    this.addSql(`drop table "events_partitioned" cascade;`);
    this.addSql(`alter table "events" add constraint "events_pkey" primary key ("id");`);
    this.addSql(`create index "events_endpoint_id_id_index" on "events" ("endpoint_id", "id");`);
    this.addSql(`create index "events_pending_endpoint_index" on "events" ("endpoint_id", "id") where "status" = 'pending';`);
    this.addSql(`alter table "replay_attempts" add constraint "replay_attempts_event_id_foreign" foreign key ("event_id") references "events" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "delivery_attempts" add constraint "delivery_attempts_event_id_foreign" foreign key ("event_id") references "events" ("id") on update cascade on delete cascade;`);
  }
}
