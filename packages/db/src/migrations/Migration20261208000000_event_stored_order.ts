import { Migration } from "@mikro-orm/migrations";

/**
 * The order events committed in, for resuming an event stream (GET /api/v1/endpoints/{id}/stream
 * with Last-Event-ID): a resumed stream sends the endpoint's events stored after the one named.
 *
 * A number drawn at INSERT follows commit order only because the capture statement draws it
 * while holding a transaction-level advisory lock (STREAM_ORDER_LOCK in capture-writer.ts), kept
 * until it commits: a transaction that drew a lower number has committed before another can
 * draw one. So once an event is visible, every event with a lower number is visible too (or
 * was rolled back), which is what lets a stream resume at a number and miss nothing.
 *
 * A sequence, not a clock: one order for every instance. Its CACHE must stay 1: a session that
 * caches numbers hands them out later, after other sessions' higher ones, outside the lock's order.
 * Added without a rewrite: the column has no default when it is added (old rows keep null), the
 * default applies to new rows only. The index is partial: old rows (null) are never looked up
 * by it, so building it on a large table adds nothing to it.
 */
export class Migration20261208000000_event_stored_order extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "events" add column "stored_order" bigint null;`);
    this.addSql(`create sequence "events_stored_order_seq" as bigint cache 1 owned by "events"."stored_order";`);
    this.addSql(`alter table "events" alter column "stored_order" set default nextval('events_stored_order_seq');`);
    this.addSql(
      `create index "events_endpoint_id_stored_order_index" on "events" ("endpoint_id", "stored_order") where "stored_order" is not null;`,
    );
  }

  override async down(): Promise<void> {
    // The sequence is owned by the column: dropping the column drops it, and the index.
    this.addSql(`alter table "events" drop column "stored_order";`);
  }
}
