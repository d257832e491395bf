import { Migration } from "@mikro-orm/migrations";

/** Whether forwards and replays keep the sender's X-Forwarded-*, Forwarded and X-Real-IP (off: dropped). */
export class Migration20261122000000_keep_proxy_headers extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "endpoints" add column "keep_proxy_headers" boolean not null default false;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "endpoints" drop column "keep_proxy_headers";`);
  }
}
