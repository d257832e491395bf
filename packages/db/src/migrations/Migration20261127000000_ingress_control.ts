import { Migration } from "@mikro-orm/migrations";

/**
 * What an endpoint answers its senders (a custom response, a provider's URL handshake) and
 * how it checks their signatures. `verification_version` counts changes of the signature
 * rule: a capture batch stores only rows checked under the current rule (see the capture
 * writer). Each event records what its signature check found (null: nothing was checked).
 */
export class Migration20261127000000_ingress_control extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "endpoints" add column "custom_response" jsonb null, add column "handshake" jsonb null, add column "verification" jsonb null, add column "verification_version" int not null default 0;`,
    );
    this.addSql(`alter table "events" add column "signature" text null;`);
    this.addSql(`alter table "events" add constraint "events_signature_check" check ("signature" in ('valid', 'invalid', 'missing'));`);
    // Only verified endpoints' events are indexed: the filter ?signature= reads this, the rest costs nothing.
    this.addSql(`create index "events_endpoint_signature_index" on "events" ("endpoint_id", "signature", "id") where "signature" is not null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "events_endpoint_signature_index";`);
    this.addSql(`alter table "events" drop constraint "events_signature_check", drop column "signature";`);
    this.addSql(`alter table "endpoints" drop column "custom_response", drop column "handshake", drop column "verification", drop column "verification_version";`);
  }
}
