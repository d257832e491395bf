import { Migration } from "@mikro-orm/migrations";

/**
 * OpenID Connect sign-in. An account made by single sign-on has no password (null: the
 * password form never accepts it). user_identities links an account to an identity
 * provider's subject, so a later sign-in finds the account by (issuer, subject) even after
 * the email changes at the provider; the first sign-in links it by its verified email.
 */
export class Migration20261205000000_sso extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "users" alter column "password_hash" drop not null;`);
    this.addSql(`
      create table "user_identities" (
        "issuer" text not null,
        "subject" text not null,
        "user_id" uuid not null,
        "email" text not null,
        "created_at" timestamptz(3) not null default now(),
        "last_sign_in_at" timestamptz(3) not null default now(),
        primary key ("issuer", "subject")
      );`);
    this.addSql(`create index "user_identities_user_id_index" on "user_identities" ("user_id");`);
    this.addSql(
      `alter table "user_identities" add constraint "user_identities_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`,
    );
  }

  /** Back down: the links go; an account made by SSO keeps a password hash no password matches (the form refuses it, as before). */
  override async down(): Promise<void> {
    this.addSql(`drop table if exists "user_identities";`);
    this.addSql(`update "users" set "password_hash" = '!sso-only' where "password_hash" is null;`);
    this.addSql(`alter table "users" alter column "password_hash" set not null;`);
  }
}
