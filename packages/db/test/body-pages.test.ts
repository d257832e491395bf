import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUuidV7Generator, uuidv7 } from "@rehook/core";
import { createTestDatabase, insertUserWithTeam, type TestDatabase } from "../../../tooling/vitest/src/postgres.js";
import {
  BODY_BYTES_PER_READ,
  claimDueDeliveries,
  createOrm,
  createPool,
  findOwnedEvent,
  fullEventsAfter,
  fullEventsByIds,
  ownedEventBodySlice,
  replaySourcesPage,
  type Orm,
  type Pool,
} from "../src/index.js";

// Reads of full events are cut by body bytes, not only by rows: these tests store events of
// known body sizes (made inside PostgreSQL, so megabytes need not cross the wire to set up)
// and look at where each read stops.

const MiB = 1024 * 1024;
let db: TestDatabase;
let orm: Orm;
let pool: Pool;
let teamId: string;
/** Ids in the order the events are "received" (UUIDv7 from one generator keep their order). */
const nextId = createUuidV7Generator(() => 1_800_000_000_000);

/** An endpoint, with a first destination (position 0) at `destination` when given. */
async function endpoint(destination: string | null = null): Promise<string> {
  const id = uuidv7();
  await db.query("insert into endpoints (id, team_id, name, slug, secret) values ($1, $2, $3, $4, 'whsec_x')", [id, teamId, id, `s-${id}`]);
  if (destination !== null) {
    await db.query(
      `insert into destinations (id, endpoint_id, position, name, url, created_at, updated_at) values (gen_random_uuid(), $1, 0, 'example.com', $2, now(), now())`,
      [id, destination],
    );
  }
  return id;
}

/**
 * Stores events with bodies of these sizes (bytes of 'a'), oldest first; answers their ids.
 * A forwarded one (pending, delivered, failed) has its delivery to the endpoint's first destination, in the same status.
 */
async function events(endpointId: string, sizes: number[], status = "captured"): Promise<string[]> {
  const ids = sizes.map(() => nextId());
  await db.query(
    `insert into events (id, endpoint_id, received_at, method, path, query, headers, body, size_bytes, source, event_type, status, destination_url)
     select t.id, $1, now(), 'POST', '', '', '[]', convert_to(repeat('a', t.size), 'UTF8'), t.size, 'unknown', 'unknown', $4,
            (select url from destinations where endpoint_id = $1 and position = 0)
     from unnest($2::uuid[], $3::int[]) as t(id, size)`,
    [endpointId, ids, sizes, status],
  );
  if (status === "pending" || status === "delivered" || status === "failed") {
    await db.query(
      `insert into deliveries (event_id, destination_id, endpoint_id, status, completed_at)
       select t.id, d.id, d.endpoint_id, $3, case when $3 = 'pending' then null else now() end
       from unnest($2::uuid[]) as t(id) join destinations d on d.endpoint_id = $1 and d.position = 0`,
      [endpointId, ids, status],
    );
  }
  return ids;
}

const bodyBytes = (rows: Array<{ body: Buffer }>) => rows.reduce((sum, row) => sum + row.body.byteLength, 0);

beforeAll(async () => {
  db = await createTestDatabase();
  orm = await createOrm({ databaseUrl: db.url, poolSize: 2 });
  pool = createPool({ databaseUrl: db.url, max: 2 });
  teamId = await insertUserWithTeam(db, "pages@example.com");
});
afterAll(async () => {
  await pool.end();
  await orm.close();
  await db.drop();
});

describe("reads of full events are cut by body bytes", () => {
  it("a stream backlog page stops once the bodies before an event reach the bound, and always has one event", async () => {
    const id = await endpoint();
    const ids = await events(id, [3 * MiB, 3 * MiB, 3 * MiB, 10 * MiB, 1, 1]);
    const em = () => orm.em.fork();
    const first = await fullEventsAfter(em(), teamId, id, "00000000-0000-0000-0000-000000000000", 100, 8 * MiB);
    // 0 and 3 MiB before the first two, 6 MiB before the third (< 8): three events, 9 MiB.
    expect(first.map((e) => e.id)).toEqual(ids.slice(0, 3));
    const second = await fullEventsAfter(em(), teamId, id, ids[2]!, 100, 8 * MiB);
    // A body larger than the bound goes alone.
    expect(second.map((e) => e.id)).toEqual([ids[3]]);
    expect(second[0]!.body.byteLength).toBe(10 * MiB);
    const third = await fullEventsAfter(em(), teamId, id, ids[3]!, 100, 8 * MiB);
    expect(third.map((e) => e.id)).toEqual(ids.slice(4));
    expect(await fullEventsAfter(em(), teamId, id, ids[5]!, 100, 8 * MiB)).toEqual([]);
    // The row limit still applies, and by default a page holds BODY_BYTES_PER_READ at most plus one body.
    expect((await fullEventsAfter(em(), teamId, id, "00000000-0000-0000-0000-000000000000", 2)).map((e) => e.id)).toEqual(ids.slice(0, 2));
    expect(BODY_BYTES_PER_READ).toBe(8 * MiB);
  });

  it("live reads by id take a byte-bounded prefix in commit order, skipping other users' and missing ids", async () => {
    const id = await endpoint();
    const ids = await events(id, [5 * MiB, 5 * MiB, 1]);
    const strangerId = uuidv7();
    await db.query("insert into users (id, email, password_hash) values ($1, 'stranger-pages@example.com', 'x')", [strangerId]);
    const page = await fullEventsByIds(orm.em.fork(), teamId, id, [ids[2]!, uuidv7(), ids[1]!, ids[0]!], 4 * MiB);
    expect(page.map((e) => e.id)).toEqual([ids[0]]);
    expect(bodyBytes(page)).toBe(5 * MiB);
    expect(await fullEventsByIds(orm.em.fork(), strangerId, id, ids, 4 * MiB)).toEqual([]);
  });

  it("bulk replay pages are cut by bytes and stop at the job's start", async () => {
    const id = await endpoint("https://example.com/in");
    const ids = await events(id, [4 * MiB, 4 * MiB, 4 * MiB, 4 * MiB, 4 * MiB], "failed");
    const read = (after: string | null, before = ids[4]!) => replaySourcesPage(orm.em.fork(), teamId, id, { status: "failed", after, before, limit: 100, maxBytes: 8 * MiB });
    const pages: string[][] = [];
    let after: string | null = null;
    for (;;) {
      const page = await read(after);
      if (page.length === 0) break;
      expect(bodyBytes(page)).toBeLessThanOrEqual(8 * MiB + 4 * MiB);
      pages.push(page.map((source) => source.id));
      after = page[page.length - 1]!.id;
    }
    // 0 and 4 MiB before the first two (< 8), 8 MiB before the third: two per page; the fifth is after the job started.
    expect(pages).toEqual([ids.slice(0, 2), ids.slice(2, 4)]);
    expect((await read(null))[0]).toMatchObject({ destinationUrl: "https://example.com/in", signRequests: false });
  });

  it("recovery claims are cut by bytes, leave the rest unleased, and take a body larger than the bound alone", async () => {
    const id = await endpoint("https://example.com/in");
    const ids = await events(id, [6 * MiB, 6 * MiB, 12 * MiB, 1], "pending");
    // Other tests' pending deliveries do not exist: this endpoint's are the only ones.
    const claim = () => claimDueDeliveries(pool, 500, 60_000, 8 * MiB);
    const first = await claim();
    expect(first.map((e) => e.id)).toEqual(ids.slice(0, 2));
    const leased = await db.query<{ id: string }>("select event_id as id from deliveries where event_id = any($1::uuid[]) and lease_expires_at is not null order by event_id", [
      ids,
    ]);
    expect(leased.map((row) => row.id)).toEqual(ids.slice(0, 2));
    const second = await claim();
    expect(second.map((e) => e.id)).toEqual([ids[2]]);
    expect(second[0]!.body.byteLength).toBe(12 * MiB);
    expect((await claim()).map((e) => e.id)).toEqual([ids[3]]);
    expect(await claim()).toEqual([]);
  });
});

describe("one event's body in bounded pieces", () => {
  it("the detail carries a preview of the asked size and the whole size; slices read the rest", async () => {
    const id = await endpoint();
    const [eventId] = await events(id, [3 * MiB]);
    const detail = await findOwnedEvent(orm.em.fork(), teamId, eventId!, 256 * 1024);
    expect(detail).toMatchObject({ sizeBytes: 3 * MiB, bodyTruncated: true });
    expect(detail!.body.byteLength).toBe(256 * 1024);
    const small = await events(id, [10]);
    expect(await findOwnedEvent(orm.em.fork(), teamId, small[0]!, 256 * 1024)).toMatchObject({ sizeBytes: 10, bodyTruncated: false });
    const tail = await ownedEventBodySlice(orm.em.fork(), teamId, eventId!, 3 * MiB - 5, MiB);
    expect(tail!.toString()).toBe("aaaaa");
    expect(await ownedEventBodySlice(orm.em.fork(), uuidv7(), eventId!, 0, 10)).toBeNull();
  });
});
