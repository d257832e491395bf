import { Migration } from "@mikro-orm/migrations";

/**
 * What a replay attempt sent (method, headers, body bytes) and whether it was edited: an
 * edited replay differs from its event, so the event alone no longer tells. Null on older
 * attempts and local replays (the browser sends those).
 */
export class Migration20261126000000_replay_request extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "replay_attempts" add column "request_method" text null, add column "request_headers" json null, add column "request_body" bytea null, add column "modified" boolean not null default false;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "replay_attempts" drop column "request_method", drop column "request_headers", drop column "request_body", drop column "modified";`);
  }
}
