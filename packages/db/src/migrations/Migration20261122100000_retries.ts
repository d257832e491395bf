import { Migration } from "@mikro-orm/migrations";

/**
 * Delivery that recovers by itself. Per endpoint: the retry policy (null attempts: one
 * attempt), the circuit breaker (pause after this many consecutive failed attempts) and its
 * state. Per event: when its next attempt is due while it waits as pending. Every attempt is
 * a row of delivery_attempts, written in the statement that stores its result.
 */
export class Migration20261122100000_retries extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table "endpoints"
        add column "retry_max_attempts" int null,
        add column "retry_initial_delay_ms" int null,
        add column "retry_max_delay_ms" int null,
        add column "pause_after_failures" int null,
        add column "consecutive_failures" int not null default 0,
        add column "forwarding_paused_at" timestamptz(3) null,
        add column "paused_reason" text null;`);
    this.addSql(`alter table "events" add column "next_attempt_at" timestamptz(3) null;`);
    this.addSql(`
      create table "delivery_attempts" (
        "id" bigserial primary key,
        "event_id" uuid not null,
        "attempt" int not null,
        "started_at" timestamptz(3) not null,
        "latency_ms" int not null,
        "response_status" int null,
        "response_headers" json null,
        "response_body" bytea null,
        "response_truncated" boolean not null default false,
        "error" text null,
        "outcome" text not null
      );`);
    this.addSql(`create index "delivery_attempts_event_id_attempt_index" on "delivery_attempts" ("event_id", "attempt");`);
    this.addSql(`alter table "delivery_attempts" add constraint "delivery_attempts_event_id_foreign" foreign key ("event_id") references "events" ("id") on update cascade on delete cascade;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "delivery_attempts" cascade;`);
    this.addSql(`alter table "events" drop column "next_attempt_at";`);
    this.addSql(`
      alter table "endpoints"
        drop column "retry_max_attempts", drop column "retry_initial_delay_ms", drop column "retry_max_delay_ms",
        drop column "pause_after_failures", drop column "consecutive_failures", drop column "forwarding_paused_at", drop column "paused_reason";`);
  }
}
