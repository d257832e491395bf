import { Migration } from "@mikro-orm/migrations";

/**
 * Who can take a local replay: one row per open `rehook listen` stream that asked for local
 * replays (`?local_replays=true`), written by the instance that serves the stream and removed
 * when it closes. `seen_at` is renewed while the stream lives, so the row of an instance that
 * died without closing it stops counting after a while (see LIVE_LISTENER_SECONDS). The
 * dashboard's Local replay asks this table whether the member has a listener for the endpoint,
 * and the bus carries the replay to the instance that holds it.
 */
export class Migration20261209040000_local_listeners extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table "local_listeners" (
        "id" uuid not null,
        "team_id" uuid not null,
        "endpoint_id" uuid not null,
        "user_id" uuid not null,
        "key_id" uuid null,
        "connected_at" timestamptz(3) not null default now(),
        "seen_at" timestamptz(3) not null default now(),
        constraint "local_listeners_pkey" primary key ("id")
      );`);
    this.addSql(`create index "local_listeners_endpoint_id_user_id_index" on "local_listeners" ("endpoint_id", "user_id");`);
    this.addSql(`create index "local_listeners_team_id_index" on "local_listeners" ("team_id");`);
    this.addSql(`create index "local_listeners_user_id_index" on "local_listeners" ("user_id");`);
    this.addSql(`alter table "local_listeners" add constraint "local_listeners_team_id_foreign" foreign key ("team_id") references "teams" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "local_listeners" add constraint "local_listeners_endpoint_id_foreign" foreign key ("endpoint_id") references "endpoints" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "local_listeners" add constraint "local_listeners_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "local_listeners" cascade;`);
  }
}
