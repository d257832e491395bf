import { Migration } from "@mikro-orm/migrations";

/** When the stored delivery attempt started (the worker's clock), beside when it was stored. */
export class Migration20261121020000_forwarded_at extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "events" add column "forwarded_at" timestamptz(3) null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "events" drop column "forwarded_at";`);
  }
}
