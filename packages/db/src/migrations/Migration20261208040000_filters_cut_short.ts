import { Migration } from "@mikro-orm/migrations";

/**
 * An event records the destinations whose routing filter was cut short by the capture's
 * filter work budget (see packages/core/src/routing/filter.ts): they are shown as filtered
 * with that reason, not as filters that said no. Null for nearly every event (a nullable
 * column without a default adds no storage to existing rows and rewrites nothing).
 */
export class Migration20261208040000_filters_cut_short extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "events" add column "filters_cut_short" uuid[] null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "events" drop column "filters_cut_short";`);
  }
}
