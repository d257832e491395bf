import { describe, expect, it } from "vitest";
import { createUuidV7Generator, uuidv7 } from "@rehook/core";
import { createPool, eventPartitions, purgeEndpointEvents } from "../src/index.js";
import { unmigratedDatabase } from "./unmigrated-database.js";

// An existing database upgraded to partitioned events: nothing is copied or lost, the old
// table becomes the first partition, attempts keep their foreign keys (until a later migration
// drops delivery attempts' key, when purges delete them), and the counts start equal to the events.

const BEFORE_PARTITIONS = "Migration20261122300000_jobs";

const t = unmigratedDatabase();

describe("upgrading to partitioned events", () => {
  it("keeps every event and attempt, as the first partition, with counts to match", async () => {
    await t.orm.getMigrator().up({ to: BEFORE_PARTITIONS });
    const userId = uuidv7();
    const endpointId = uuidv7();
    await t.db.query("insert into users (id, email, password_hash) values ($1, 'old@example.com', 'x')", [userId]);
    await t.db.query("insert into endpoints (id, user_id, name, slug, secret, destination_url) values ($1, $2, 'old', 'old-aaaaaaaa', 'whsec_x', 'https://example.com/in')", [
      endpointId,
      userId,
    ]);
    const makeId = createUuidV7Generator();
    const ids = Array.from({ length: 50 }, (_, i) => makeId(Date.now() - (50 - i) * 3_600_000));
    await t.db.query(
      `insert into events (id, endpoint_id, received_at, method, path, query, headers, body, size_bytes, source, event_type, status, destination_url)
       select t.id, $1, now(), 'POST', '', '', '[]', '\\x7b7d', 2, 'unknown', 'unknown', case when t.n % 5 = 0 then 'failed' else 'delivered' end, 'https://example.com/in'
       from unnest($2::uuid[]) with ordinality as t(id, n)`,
      [endpointId, ids],
    );
    await t.db.query("insert into delivery_attempts (event_id, attempt, started_at, latency_ms, outcome) select id, 1, now(), 5, status from events");

    await t.orm.getMigrator().up({ to: "Migration20261123010000_event_counts_retention" });

    expect((await t.db.query<{ id: string }>("select id from events order by id")).map((row) => row.id)).toEqual(ids);
    const pool = createPool({ databaseUrl: t.db.url, max: 1 });
    try {
      expect((await eventPartitions(pool))[0]).toMatchObject({ name: "events_legacy", from: null });
    } finally {
      await pool.end();
    }
    const located = await t.db.query<{ partition: string }>("select distinct tableoid::regclass::text as partition from events");
    expect(located).toEqual([{ partition: "events_legacy" }]);
    expect(await t.db.query("select status, n::int from event_counts order by status")).toEqual([
      { status: "delivered", n: 40 },
      { status: "failed", n: 10 },
    ]);
    // The attempts still point at their events: deleting an event takes its attempts along.
    await t.db.query("delete from events where id = $1", [ids[0]]);
    expect(await t.db.query("select 1 from delivery_attempts where event_id = $1", [ids[0]])).toHaveLength(0);
    expect(await t.db.query("select 1 from delivery_attempts")).toHaveLength(49);
    await expect(t.db.query("insert into delivery_attempts (event_id, attempt, started_at, latency_ms, outcome) values ($1, 1, now(), 1, 'failed')", [uuidv7()])).rejects.toThrow(
      /foreign key/,
    );

    // Later, delivery attempts lose that key (fast_path_lease): a purge deletes them with their events.
    await t.orm.getMigrator().up();
    const purging = createPool({ databaseUrl: t.db.url, max: 1 });
    try {
      expect(await purgeEndpointEvents(purging, endpointId, 1)).toBe(1);
    } finally {
      await purging.end();
    }
    expect(await t.db.query("select 1 from delivery_attempts where event_id = $1", [ids[1]])).toHaveLength(0);
    expect(await t.db.query("select 1 from delivery_attempts")).toHaveLength(48);
  });
});
