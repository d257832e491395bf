import { Migration } from "@mikro-orm/migrations";

/**
 * Tells the planner, on every partition of `events` there is, that an endpoint is rare
 * (n_distinct -1), then refreshes the statistics: otherwise it may read an endpoint's newest
 * events through the time-ordered primary key and filter, which for an endpoint with few
 * events reads whole days. Partitions made later get the same setting when they are created
 * (partitions.ts).
 */
export class Migration20261123020000_endpoint_statistics extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      do $$
      declare partition regclass;
      begin
        for partition in select inhrelid::regclass from pg_inherits where inhparent = 'events'::regclass loop
          execute format('alter table %s alter column endpoint_id set (n_distinct = -1)', partition);
        end loop;
      end $$;`);
    this.addSql(`analyze "events";`);
  }

  override async down(): Promise<void> {
    this.addSql(`
      do $$
      declare partition regclass;
      begin
        for partition in select inhrelid::regclass from pg_inherits where inhparent = 'events'::regclass loop
          execute format('alter table %s alter column endpoint_id reset (n_distinct)', partition);
        end loop;
      end $$;`);
  }
}
