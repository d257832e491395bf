import { Migration } from "@mikro-orm/migrations";

/**
 * The recovery claim goes endpoint by endpoint (skipping through the endpoints that have
 * pending events, then each one's oldest due events): pending events are indexed by
 * endpoint, then id. It replaces the index by id alone, so capture keeps the same number of
 * indexes to write.
 */
export class Migration20261122200000_pending_by_endpoint extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index "events_pending_endpoint_index" on "events" ("endpoint_id", "id") where "status" = 'pending';`);
    this.addSql(`drop index if exists "events_pending_index";`);
  }

  override async down(): Promise<void> {
    this.addSql(`create index "events_pending_index" on "events" ("id") where "status" = 'pending';`);
    this.addSql(`drop index if exists "events_pending_endpoint_index";`);
  }
}
