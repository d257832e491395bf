import { Migration } from "@mikro-orm/migrations";

/**
 * The fast path's lease moves onto the event: an event with a single delivery, stored already
 * leased to the capturing instance, gets no delivery row at capture. The event names the
 * destination it is being sent to and until when the lease holds; its delivery row is written
 * with the attempt's result (or when it is handed back, or its lease expires unanswered).
 * One destination then costs the capture statement what it cost before routing: one event row
 * and its index entries, no second table. Events stored before keep their rows as they are.
 *
 * The index holds only events in that state (a few seconds' worth of captures): it is what the
 * recovery claim scans for leases that expired with their holder.
 *
 * delivery_attempts loses its foreign key to events, for the reason events and deliveries have
 * none: its check ran once per stored attempt, a key lookup and row lock on the event the same
 * statement has just updated, and was the largest single part of the completion statement
 * (40 to 60 µs of about 110 to 160 per attempt, measured with auto_explain on PostgreSQL 15).
 * What it guarded is kept by the writers: an attempt is stored only for a delivery the
 * completion statement holds (its row locked by the update, or its event probed), purges
 * delete attempts in the statement that deletes their events, and a partition's attempts are
 * deleted before the partition is dropped.
 */
export class Migration20261207000000_fast_path_lease extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "events" add column "fast_path_destination_id" uuid null, add column "fast_path_lease_expires_at" timestamptz(3) null;`);
    this.addSql(
      `create index "events_fast_path_index" on "events" ("fast_path_lease_expires_at") where "fast_path_destination_id" is not null;`,
    );
    this.addSql(`alter table "delivery_attempts" drop constraint "delivery_attempts_event_id_foreign";`);
  }

  override async down(): Promise<void> {
    this.addSql(`delete from "delivery_attempts" a where not exists (select 1 from "events" e where e.id = a.event_id);`);
    this.addSql(
      `alter table "delivery_attempts" add constraint "delivery_attempts_event_id_foreign" foreign key ("event_id") references "events" ("id") on update cascade on delete cascade;`,
    );
    // Leases still on events become delivery rows, claimable at once, their attempt counted.
    this.addSql(`
      insert into "deliveries" ("event_id", "destination_id", "endpoint_id", "status", "attempts")
      select id, fast_path_destination_id, endpoint_id, 'pending', 1 from "events" where fast_path_destination_id is not null
      on conflict do nothing;`);
    this.addSql(`drop index "events_fast_path_index";`);
    this.addSql(`alter table "events" drop column "fast_path_destination_id", drop column "fast_path_lease_expires_at";`);
  }
}
