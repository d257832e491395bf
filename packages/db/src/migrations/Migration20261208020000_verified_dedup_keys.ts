import { Migration } from "@mikro-orm/migrations";

/**
 * On an endpoint that checks signatures, only an event whose signature is valid may hold a
 * dedup key: an unsigned request sent first must not make the sender's signed delivery its
 * duplicate (and so never forwarded). dedup_keys remembers whether its first event was
 * verified; a valid event takes over a key held by one that was not. Keys taken before the
 * upgrade are verified when their first event's signature was valid, so a key a forgery holds
 * stops counting at once rather than at the end of its window (up to 7 days). Only endpoints
 * that check signatures read the flag. Each of their keys looks its first event up by id (a
 * correlated subquery: one index probe in one partition, never a scan of events), and the
 * constant default adds the column without rewriting the table.
 */
export class Migration20261208020000_verified_dedup_keys extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "dedup_keys" add column "verified" boolean not null default false;`);
    this.addSql(`
      update "dedup_keys" k set "verified" = true
      where k.endpoint_id in (select id from "endpoints" where "verification" is not null)
        and (select e.signature from "events" e where e.id = k.first_event_id) = 'valid';`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "dedup_keys" drop column "verified";`);
  }
}
