import { Migration } from "@mikro-orm/migrations";

/** The whole data model of the spec: users, sessions, endpoints, events, replays, API keys, notifications. */
export class Migration20261121000000_initial extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table "users" (
        "id" uuid not null,
        "email" text not null,
        "password_hash" text not null,
        "created_at" timestamptz(3) not null default now(),
        constraint "users_pkey" primary key ("id")
      );`);
    this.addSql(`alter table "users" add constraint "users_email_unique" unique ("email");`);

    this.addSql(`
      create table "sessions" (
        "id" text not null,
        "user_id" uuid not null,
        "expires_at" timestamptz(3) not null,
        constraint "sessions_pkey" primary key ("id")
      );`);
    this.addSql(`create index "sessions_user_id_index" on "sessions" ("user_id");`);

    this.addSql(`
      create table "endpoints" (
        "id" uuid not null,
        "user_id" uuid not null,
        "name" text not null,
        "slug" text not null,
        "destination_url" text null,
        "secret" text not null,
        "sign_requests" boolean not null default false,
        "staging_host" text null,
        "delivered_count" bigint not null default 0,
        "failed_count" bigint not null default 0,
        "created_at" timestamptz(3) not null default now(),
        "updated_at" timestamptz(3) not null default now(),
        constraint "endpoints_pkey" primary key ("id")
      );`);
    this.addSql(`create index "endpoints_user_id_index" on "endpoints" ("user_id");`);
    this.addSql(`alter table "endpoints" add constraint "endpoints_slug_unique" unique ("slug");`);

    this.addSql(`
      create table "events" (
        "id" uuid not null,
        "endpoint_id" uuid not null,
        "received_at" timestamptz(3) not null,
        "method" text not null,
        "path" text not null,
        "query" text not null,
        "headers" json not null,
        "body" bytea not null,
        "content_type" text null,
        "size_bytes" int not null,
        "client_ip" text null,
        "source" text not null,
        "event_type" text not null,
        "status" text not null,
        "latency_ms" int null,
        "response_status" int null,
        "response_headers" json null,
        "response_body" bytea null,
        "response_truncated" boolean not null default false,
        "error" text null,
        "attempts" int not null default 0,
        "completed_at" timestamptz(3) null,
        constraint "events_pkey" primary key ("id")
      );`);
    this.addSql(`create index "events_endpoint_id_id_index" on "events" ("endpoint_id", "id");`);

    this.addSql(`
      create table "replay_attempts" (
        "id" uuid not null,
        "event_id" uuid not null,
        "user_id" uuid null,
        "environment" text not null,
        "destination_url" text not null,
        "status" text not null,
        "response_status" int null,
        "response_headers" json null,
        "response_body" bytea null,
        "response_truncated" boolean not null default false,
        "latency_ms" int null,
        "error" text null,
        "replayed_at" timestamptz(3) not null default now(),
        constraint "replay_attempts_pkey" primary key ("id")
      );`);
    this.addSql(`create index "replay_attempts_user_id_index" on "replay_attempts" ("user_id");`);
    this.addSql(`create index "replay_attempts_event_id_replayed_at_index" on "replay_attempts" ("event_id", "replayed_at");`);

    this.addSql(`
      create table "api_keys" (
        "id" uuid not null,
        "user_id" uuid not null,
        "name" text not null,
        "prefix" text not null,
        "key_hash" bytea not null,
        "created_at" timestamptz(3) not null default now(),
        "last_used_at" timestamptz(3) null,
        "revoked_at" timestamptz(3) null,
        constraint "api_keys_pkey" primary key ("id")
      );`);
    this.addSql(`create index "api_keys_user_id_index" on "api_keys" ("user_id");`);
    this.addSql(`alter table "api_keys" add constraint "api_keys_key_hash_unique" unique ("key_hash");`);

    this.addSql(`
      create table "notification_settings" (
        "user_id" uuid not null,
        "enabled" boolean not null default false,
        "webhook_url" text null,
        "triggers" text[] not null default '{failed}',
        "paused_reason" text null,
        "last_error" text null,
        "updated_at" timestamptz(3) not null default now(),
        constraint "notification_settings_pkey" primary key ("user_id")
      );`);

    this.addSql(`alter table "sessions" add constraint "sessions_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "endpoints" add constraint "endpoints_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);
    // events.endpoint_id has no foreign key on purpose: the check would lock the endpoint row
    // once per inserted row, and concurrent capture batches on one endpoint then queue on it.
    // Capture locks the endpoint once per batch instead, and deleting an endpoint deletes its
    // events in the same transaction (packages/db/src/queries/endpoints.ts).
    this.addSql(`alter table "replay_attempts" add constraint "replay_attempts_event_id_foreign" foreign key ("event_id") references "events" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "replay_attempts" add constraint "replay_attempts_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "api_keys" add constraint "api_keys_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "notification_settings" add constraint "notification_settings_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "events" add constraint "events_status_check" check ("status" in ('captured', 'pending', 'delivered', 'failed'));`);
  }

  override async down(): Promise<void> {
    for (const table of ["notification_settings", "api_keys", "replay_attempts", "events", "endpoints", "sessions", "users"]) {
      this.addSql(`drop table if exists "${table}" cascade;`);
    }
  }
}
