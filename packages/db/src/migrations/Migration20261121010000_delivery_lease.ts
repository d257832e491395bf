import { Migration } from "@mikro-orm/migrations";

/**
 * Forwarding state on the event itself: the destination it was captured for (a later change
 * of the endpoint's destination applies to later events only) and the lease of the instance
 * delivering it. Pending events are found through a partial index that holds only them.
 */
export class Migration20261121010000_delivery_lease extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "events" add column "destination_url" text null, add column "lease_expires_at" timestamptz(3) null;`);
    this.addSql(`create index "events_pending_index" on "events" ("id") where "status" = 'pending';`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index if exists "events_pending_index";`);
    this.addSql(`alter table "events" drop column "destination_url", drop column "lease_expires_at";`);
  }
}
