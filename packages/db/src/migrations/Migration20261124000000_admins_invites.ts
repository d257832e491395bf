import { Migration } from "@mikro-orm/migrations";

/**
 * Admins and invites (SIGNUP=invite). An admin makes one-time invite links; only a SHA-256
 * of the token is stored. The first user of an existing install becomes its admin, as the
 * first user of a fresh one does.
 */
export class Migration20261124000000_admins_invites extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "users" add column "is_admin" boolean not null default false;`);
    this.addSql(`update "users" set "is_admin" = true where "id" = (select "id" from "users" order by "created_at", "id" limit 1);`);
    this.addSql(`
      create table "invites" (
        "id" uuid not null,
        "created_by_id" uuid not null,
        "token_hash" bytea not null,
        "created_at" timestamptz(3) not null default now(),
        "expires_at" timestamptz(3) not null,
        "used_at" timestamptz(3) null,
        "used_by_id" uuid null,
        "revoked_at" timestamptz(3) null,
        constraint "invites_pkey" primary key ("id")
      );`);
    this.addSql(`alter table "invites" add constraint "invites_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create index "invites_created_by_id_index" on "invites" ("created_by_id");`);
    this.addSql(
      `alter table "invites" add constraint "invites_created_by_id_foreign" foreign key ("created_by_id") references "users" ("id") on update cascade on delete cascade;`,
    );
    this.addSql(
      `alter table "invites" add constraint "invites_used_by_id_foreign" foreign key ("used_by_id") references "users" ("id") on update cascade on delete set null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "invites";`);
    this.addSql(`alter table "users" drop column "is_admin";`);
  }
}
