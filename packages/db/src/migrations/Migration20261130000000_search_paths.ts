import { Migration } from "@mikro-orm/migrations";

/**
 * Search finds the request's sub-path and query string (`request_text`: `path?query`) and the
 * decoded text of compressed bodies. The index is emptied and its range forgotten, so the job
 * fills it again from 72 hours back in the new forms (search reads those bodies meanwhile,
 * as after the index's first start); the trigram index is made again, empty, over the three columns.
 */
export class Migration20261130000000_search_paths extends Migration {
  override async up(): Promise<void> {
    this.addSql(`delete from "event_search_state";`);
    this.addSql(`truncate "event_search";`);
    this.addSql(`alter table "event_search" add column "request_text" text not null;`);
    this.addSql(`do $$ begin
      if exists (select 1 from pg_extension where extname = 'pg_trgm') then
        drop index if exists "event_search_trigrams";
        create index "event_search_trigrams" on "event_search" using gin ("body_text" gin_trgm_ops, "headers_text" gin_trgm_ops, "request_text" gin_trgm_ops) with (gin_pending_list_limit = 32768);
      end if;
    end $$;`);
  }

  override async down(): Promise<void> {
    this.addSql(`delete from "event_search_state";`);
    this.addSql(`truncate "event_search";`);
    this.addSql(`do $$ begin
      if exists (select 1 from pg_extension where extname = 'pg_trgm') then
        drop index if exists "event_search_trigrams";
        create index "event_search_trigrams" on "event_search" using gin ("body_text" gin_trgm_ops, "headers_text" gin_trgm_ops) with (gin_pending_list_limit = 32768);
      end if;
    end $$;`);
    this.addSql(`alter table "event_search" drop column "request_text";`);
  }
}
