import { Migration } from "@mikro-orm/migrations";

/**
 * What each event's sender was answered (`sender_status`, `sender_delay_ms`: the default 200,
 * a custom response's status and delay, a handshake's 200 or 403) and why its signature is
 * not valid (`signature_reason`). Nullable columns without defaults: adding them rewrites no
 * partition, and events captured before read as "not recorded".
 */
export class Migration20261129000000_event_answers extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "events" add column "signature_reason" text null, add column "sender_status" smallint null, add column "sender_delay_ms" int null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "events" drop column "signature_reason", drop column "sender_status", drop column "sender_delay_ms";`);
  }
}
