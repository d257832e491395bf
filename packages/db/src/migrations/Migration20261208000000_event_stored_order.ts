import { Migration } from "@mikro-orm/migrations";

/**
 * The order events were stored in, for resuming an event stream (GET /api/v1/endpoints/{id}/stream
 * with Last-Event-ID). An event's id is taken when its request is read, so events from several
 * instances (or group commits side by side) can commit a little out of id order: a resumed
 * stream looks back over the ids just before the one named, and sends from there only what was
 * stored after that event (what the stream could not have sent before it).
 *
 * A sequence, not a clock: one order for every instance. Added without a rewrite: the column
 * has no default when it is added (old rows keep null), the default applies to new rows only.
 */
export class Migration20261208000000_event_stored_order extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create sequence "events_stored_order_seq" as bigint;`);
    this.addSql(`alter table "events" add column "stored_order" bigint null;`);
    this.addSql(`alter table "events" alter column "stored_order" set default nextval('events_stored_order_seq');`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "events" drop column "stored_order";`);
    this.addSql(`drop sequence "events_stored_order_seq";`);
  }
}
