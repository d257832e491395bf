import { describe, expect } from "vitest";
import { test as base } from "../../../tooling/vitest/src/fixtures.js";
import { createOrm, type Orm } from "../src/index.js";

// The file's database comes from the shared fixture; an ORM on it is one more file-scoped fixture.
const it = base.extend<{ orm: Orm }>({
  orm: [
    async ({ database }, use) => {
      const orm = await createOrm({ databaseUrl: database.url, poolSize: 1 });
      try {
        await use(orm);
      } finally {
        await orm.close(true);
      }
    },
    { scope: "file" },
  ],
});

describe("migrations", () => {
  it("create exactly the schema the entities describe", async ({ orm }) => {
    const diff = await orm.getSchemaGenerator().getUpdateSchemaSQL({ wrap: false, safe: false, dropTables: true });
    // A foreign key to the partitioned events table is one constraint per partition inside
    // PostgreSQL (derived, named *_fkey, *_fkey1, …); the schema generator lists them as extra.
    const derived = /^alter table "(replay|delivery)_attempts" drop constraint "\1_attempts_event_id_fkey\d*";$/;
    const ours = diff.split("\n").filter((line) => line.trim() !== "" && !derived.test(line.trim()));
    expect(ours).toEqual([]);
  });

  it("include every table of the spec, replay_attempts by that name", async ({ database }) => {
    const tables = await database.query<{ table_name: string }>(
      "select table_name from information_schema.tables where table_schema = 'public' order by table_name",
    );
    expect(tables.map((table) => table.table_name)).toEqual(
      expect.arrayContaining(["api_keys", "endpoints", "events", "notification_settings", "replay_attempts", "sessions", "users"]),
    );
  });

  it("store bodies as bytea and timestamps with milliseconds", async ({ database }) => {
    const columns = await database.query<{ column_name: string; data_type: string; datetime_precision: number | null }>(
      "select column_name, data_type, datetime_precision from information_schema.columns where table_name = 'events' and column_name in ('body', 'received_at')",
    );
    expect(columns).toEqual(
      expect.arrayContaining([
        { column_name: "body", data_type: "bytea", datetime_precision: null },
        { column_name: "received_at", data_type: "timestamp with time zone", datetime_precision: 3 },
      ]),
    );
  });
});
