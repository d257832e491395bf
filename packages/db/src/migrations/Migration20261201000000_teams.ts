import { Migration } from "@mikro-orm/migrations";

/**
 * Teams own what users owned. Every existing user gets a personal team (named after the part
 * of their email before the @) whose owner they are, and the owner columns of endpoints,
 * notification settings, the notification outbox and bulk replays are re-pointed at that team
 * in place: the column keeps its values' meaning (the owner) and changes its name, so no row
 * moves and capture URLs, keys and streams keep working. API keys keep their creator
 * (`user_id`) and gain the team and a role: existing keys become `admin` keys, which is all a
 * key could do before (a key never renamed or deleted its owner). Roles are text checked by
 * the use cases (one list, ROLES in @rehook/core), as every other enumerated column here.
 */
export class Migration20261201000000_teams extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table "teams" (
        "id" uuid not null,
        "name" text not null,
        "slug" text not null,
        "personal_of_id" uuid null,
        "created_at" timestamptz(3) not null default now(),
        constraint "teams_pkey" primary key ("id")
      );`);
    this.addSql(`alter table "teams" add constraint "teams_slug_unique" unique ("slug");`);
    this.addSql(`alter table "teams" add constraint "teams_personal_of_id_unique" unique ("personal_of_id");`);
    this.addSql(`alter table "teams" add constraint "teams_personal_of_id_foreign" foreign key ("personal_of_id") references "users" ("id") on update cascade on delete set null;`);
    this.addSql(`
      create table "team_members" (
        "team_id" uuid not null,
        "user_id" uuid not null,
        "role" text not null,
        "created_at" timestamptz(3) not null default now(),
        "last_active_at" timestamptz(3) null,
        constraint "team_members_pkey" primary key ("team_id", "user_id")
      );`);
    this.addSql(`create index "team_members_user_id_index" on "team_members" ("user_id");`);
    this.addSql(`alter table "team_members" add constraint "team_members_team_id_foreign" foreign key ("team_id") references "teams" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "team_members" add constraint "team_members_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);

    // A personal team per user: its slug is the email's local part, made unique with a piece
    // of a hash when two users share one.
    this.addSql(`
      insert into "teams" ("id", "name", "slug", "personal_of_id", "created_at")
      select gen_random_uuid(), left(local, 100),
             base || case when row_number() over (partition by base order by created_at, id) > 1 then '-' || left(md5(id::text), 8) else '' end,
             id, created_at
      from (
        select u.id, u.created_at, split_part(u.email, '@', 1) as local,
               coalesce(nullif(rtrim(left(trim(both '-' from regexp_replace(lower(split_part(u.email, '@', 1)), '[^a-z0-9]+', '-', 'g')), 40), '-'), ''), 'team') as base
        from "users" u
      ) named;`);
    this.addSql(`insert into "team_members" ("team_id", "user_id", "role", "created_at") select "id", "personal_of_id", 'owner', "created_at" from "teams";`);

    for (const table of ["endpoints", "notification_settings", "notification_outbox", "replay_jobs"]) {
      this.addSql(`alter table "${table}" drop constraint "${table}_user_id_foreign";`);
      this.addSql(`update "${table}" o set "user_id" = t."id" from "teams" t where t."personal_of_id" = o."user_id";`);
      this.addSql(`alter table "${table}" rename column "user_id" to "team_id";`);
      this.addSql(`alter table "${table}" add constraint "${table}_team_id_foreign" foreign key ("team_id") references "teams" ("id") on update cascade on delete cascade;`);
    }
    // The notifier's jobs are keyed by the owner: pending ones follow it to its team.
    this.addSql(`update "jobs" j set "key" = t."id"::text from "teams" t where j."kind" = 'notify' and j."key" = t."personal_of_id"::text;`);
    this.addSql(`alter index "endpoints_user_id_index" rename to "endpoints_team_id_index";`);
    this.addSql(`alter index "notification_outbox_user_id_index" rename to "notification_outbox_team_id_index";`);
    this.addSql(`alter index "replay_jobs_user_id_index" rename to "replay_jobs_team_id_index";`);
    // Bulk replays remember who started them.
    this.addSql(`alter table "replay_jobs" add column "created_by_id" uuid null;`);
    this.addSql(`alter table "replay_jobs" add constraint "replay_jobs_created_by_id_foreign" foreign key ("created_by_id") references "users" ("id") on update cascade on delete set null;`);
    this.addSql(`update "replay_jobs" j set "created_by_id" = t."personal_of_id" from "teams" t where t."id" = j."team_id";`);

    this.addSql(`alter table "api_keys" add column "team_id" uuid null, add column "role" text not null default 'admin';`);
    this.addSql(`update "api_keys" k set "team_id" = t."id" from "teams" t where t."personal_of_id" = k."user_id";`);
    this.addSql(`alter table "api_keys" alter column "team_id" set not null, alter column "role" drop default;`);
    this.addSql(`create index "api_keys_team_id_index" on "api_keys" ("team_id");`);
    this.addSql(`alter table "api_keys" add constraint "api_keys_team_id_foreign" foreign key ("team_id") references "teams" ("id") on update cascade on delete cascade;`);

    // Invites: a team's invite adds its user to the team with a role; older links (no team) sign up only.
    this.addSql(`alter table "invites" add column "team_id" uuid null, add column "role" text null;`);
    this.addSql(`create index "invites_team_id_index" on "invites" ("team_id");`);
    this.addSql(`alter table "invites" add constraint "invites_team_id_foreign" foreign key ("team_id") references "teams" ("id") on update cascade on delete cascade;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "invites" drop column "team_id", drop column "role";`);
    this.addSql(`delete from "api_keys" k using "teams" t where t."id" = k."team_id" and t."personal_of_id" is null;`);
    this.addSql(`alter table "api_keys" drop column "team_id", drop column "role";`);
    this.addSql(`alter table "replay_jobs" drop column "created_by_id";`);
    // A user had one setting: a shared team's is dropped.
    this.addSql(`delete from "notification_settings" s using "teams" t where t."id" = s."team_id" and t."personal_of_id" is null;`);
    this.addSql(`alter index "endpoints_team_id_index" rename to "endpoints_user_id_index";`);
    this.addSql(`alter index "notification_outbox_team_id_index" rename to "notification_outbox_user_id_index";`);
    this.addSql(`alter index "replay_jobs_team_id_index" rename to "replay_jobs_user_id_index";`);
    for (const table of ["endpoints", "notification_settings", "notification_outbox", "replay_jobs"]) {
      this.addSql(`alter table "${table}" drop constraint "${table}_team_id_foreign";`);
      // Rows of shared teams go to the team's oldest owner.
      this.addSql(`
        update "${table}" o set "team_id" = (
          select m."user_id" from "team_members" m where m."team_id" = o."team_id" and m."role" = 'owner' order by m."created_at" limit 1
        );`);
      this.addSql(`alter table "${table}" rename column "team_id" to "user_id";`);
      this.addSql(`alter table "${table}" add constraint "${table}_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);
    }
    this.addSql(`update "jobs" j set "key" = t."personal_of_id"::text from "teams" t where j."kind" = 'notify' and j."key" = t."id"::text and t."personal_of_id" is not null;`);
    this.addSql(`drop table "team_members";`);
    this.addSql(`drop table "teams";`);
  }
}
