import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createUuidV7Generator, SEARCH_INDEX_HOURS, SEARCH_INDEX_LAG_MS, silentLogger, uuidv7, uuidv7Floor } from "@rehook/core";
import { createOrm, createPool, indexNextEvents, restartSearchIndex, searchIndexCoverage, type Orm, type Pool, type RunningJob } from "@rehook/db";
import { createTestDatabase, insertPersonalTeam, type TestDatabase } from "../../../tooling/vitest/src/postgres.js";
import { listEvents, searchIndexing } from "../src/index.js";

// The search index against a real PostgreSQL: a search finds the same events whether they
// are read through the index, from their bodies, or partly each; the job fills the index up
// to its lag and prunes it past its horizon, and search reads what lies outside it.

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
let db: TestDatabase;
let pool: Pool;
let orm: Orm;
let teamId: string;
let endpointId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ databaseUrl: db.url, max: 4 });
  orm = await createOrm({ databaseUrl: db.url, poolSize: 2 });
  const userId = uuidv7();
  await db.query("insert into users (id, email, password_hash) values ($1, 'search@example.com', 'x')", [userId]);
  teamId = await insertPersonalTeam(db, userId);
});
beforeEach(async () => {
  await db.query("delete from endpoints");
  await db.query("delete from events");
  await db.query("delete from event_search_state");
  await db.query("delete from event_search");
  endpointId = uuidv7();
  await db.query("insert into endpoints (id, team_id, name, slug, secret) values ($1, $2, 'search', $3, 'whsec_x')", [endpointId, teamId, `s-${endpointId.slice(-12)}`]);
});
afterAll(async () => {
  await orm.close(true);
  await pool.end();
  await db.drop();
});

/** Stores an event received `ageMs` ago, as capture would. */
async function insert(body: Buffer, headers: Array<[string, string]>, ageMs: number): Promise<string> {
  const id = createUuidV7Generator()(Date.now() - ageMs);
  await db.query(
    `insert into events (id, endpoint_id, received_at, method, path, query, headers, body, size_bytes, source, event_type, status)
     values ($1, $2, now(), 'POST', '', '', $3, $4, $5, 'unknown', 'unknown', 'captured')`,
    [id, endpointId, JSON.stringify(headers), body, body.length],
  );
  return id;
}

const job = (): RunningJob => ({ id: "1", key: "all", payload: {}, attempt: 1, signal: new AbortController().signal });
const search = async (text: string, extra: Record<string, unknown> = {}) =>
  (await listEvents({ orm }, { teamId, search: text, limit: 100, ...extra })).events.map((event) => event.id);

/** Every form search compares, at ages spread over three days. */
async function corpus() {
  return {
    json: await insert(Buffer.from('{"customer":"Ada Lovelace","note":"50%_off"}'), [], 10 * 60_000),
    binary: await insert(Buffer.concat([Buffer.from([0xff, 0x00, 0xfe]), Buffer.from("ORDER-42"), Buffer.from([0x80])]), [], 5 * HOUR),
    header: await insert(Buffer.from("{}"), [["X-Request-Id", "req-Needle-1"]], 20 * HOUR),
    accented: await insert(Buffer.from("café crème"), [], 3 * HOUR),
    old: await insert(Buffer.from("ada lovelace, two days ago"), [], 2 * DAY),
    escapedLookalike: await insert(Buffer.from("a\\000b"), [], 2 * HOUR),
    deep: await insert(Buffer.concat([Buffer.alloc(70 * 1024, 0x20), Buffer.from("beyond the searched part")]), [], HOUR),
  };
}

/** What each search finds: the answers must not depend on where the index stands. */
async function answers() {
  return {
    ada: await search("ada LOVELACE"),
    adaThreeDays: await search("ada lovelace", { receivedAfter: new Date(Date.now() - 3 * DAY) }),
    order: await search("order-42"),
    needle: await search("needle"),
    cafe: await search("café"),
    percent: await search("50%_off"),
    wildcard: await search("5_%"),
    nul: await search("\\000"),
    deep: await search("beyond the searched part"),
    ab: await search("ab"),
  };
}

describe("the search index", () => {
  it("finds exactly what reading the bodies finds, with the index empty, partial or complete", async () => {
    const events = await corpus();
    const scanned = await answers();
    expect(scanned.ada).toEqual([events.json]);
    expect(scanned.adaThreeDays).toEqual([events.json, events.old]);
    expect(scanned.order).toEqual([events.binary]);
    expect(scanned.needle).toEqual([events.header]);
    expect(scanned.cafe).toEqual([events.accented]);
    expect(scanned.percent).toEqual([events.json]);
    expect(scanned.wildcard).toEqual([]);
    expect(scanned.nul).toEqual([events.escapedLookalike]);
    expect(scanned.deep).toEqual([]);

    // Partial: the index holds the events of 12 h to 4 h ago, the rest is read from bodies.
    await restartSearchIndex(pool, uuidv7Floor(Date.now() - 12 * HOUR));
    await indexNextEvents(pool, uuidv7Floor(Date.now() - 4 * HOUR), 1_000);
    expect(Number((await db.query("select count(*) as n from event_search"))[0]!.n)).toBe(1);
    expect(await answers()).toEqual(scanned);

    // Complete: every event indexed, in small batches (each moves the range on).
    await restartSearchIndex(pool, uuidv7Floor(Date.now() - 3 * DAY));
    for (let more = true; more; ) more = (await indexNextEvents(pool, uuidv7Floor(Date.now() + 60_000), 2)).more;
    expect(Number((await db.query("select count(*) as n from event_search"))[0]!.n)).toBe(Object.keys(events).length);
    expect(await answers()).toEqual(scanned);
  });

  it("answers from the index alone for the range it covers", async () => {
    const id = await insert(Buffer.from("only-in-the-index"), [], HOUR);
    await restartSearchIndex(pool, uuidv7Floor(Date.now() - DAY));
    await indexNextEvents(pool, uuidv7Floor(Date.now()), 1_000);
    expect(await search("only-in-the-index")).toEqual([id]);
    // Were the events table read for that range, this body would still match.
    await db.query("update event_search set body_text = 'changed' where id = $1", [id]);
    expect(await search("only-in-the-index")).toEqual([]);
  });

  it("is filled by its job up to the lag, read past it, and pruned past its horizon", async () => {
    let now = Date.now();
    const handler = searchIndexing({ pool, logger: silentLogger, now: () => now });
    const lagging = await insert(Buffer.from("lagging needle"), [], SEARCH_INDEX_LAG_MS / 2);
    const settled = await insert(Buffer.from("settled needle"), [], 10 * 60_000);
    const ancient = await insert(Buffer.from("ancient needle"), [], (SEARCH_INDEX_HOURS + 1) * HOUR);

    await handler.run(job());
    const coverage = await searchIndexCoverage(orm.em.fork());
    expect(coverage).toEqual({ from: uuidv7Floor(now - SEARCH_INDEX_HOURS * HOUR), through: uuidv7Floor(now - SEARCH_INDEX_LAG_MS) });
    expect((await db.query("select id from event_search")).map((row) => row.id)).toEqual([settled]);
    // The lagging event is read from its body; the one older than the index from its own.
    expect(await search("needle")).toEqual([lagging, settled]);
    expect(await search("needle", { receivedAfter: new Date(now - 4 * DAY) })).toEqual([lagging, settled, ancient]);

    // A day later, within the horizon: the lagging event is indexed too.
    now += DAY;
    await handler.run(job());
    expect((await db.query("select id from event_search order by id")).map((row) => row.id)).toEqual([settled, lagging]);
    // Past the horizon, both are pruned, and still found by reading bodies.
    now += SEARCH_INDEX_HOURS * HOUR;
    await handler.run(job());
    expect(await db.query("select id from event_search")).toEqual([]);
    expect(await search("needle", { receivedAfter: new Date(Date.now() - 4 * DAY) })).toEqual([lagging, settled, ancient]);
  });

  it("never reads the index for a text the range's newest slice already fills a page with", async () => {
    const newest = [await insert(Buffer.from("common words"), [], 2 * 60_000), await insert(Buffer.from("common words"), [], 3 * 60_000)];
    await insert(Buffer.from("common words"), [], 5 * HOUR);
    await restartSearchIndex(pool, uuidv7Floor(Date.now() - DAY));
    await indexNextEvents(pool, uuidv7Floor(Date.now()), 1_000);
    // The index is locked: a search that read it would wait for the lock.
    const locker = await pool.connect();
    try {
      await locker.query("begin");
      await locker.query("lock table event_search in access exclusive mode");
      // A page of 1 reads 2 (the second tells whether there is a next page): both in the newest slice.
      const page = await listEvents({ orm }, { teamId, search: "common", limit: 1 });
      expect(page.events.map((event) => event.id)).toEqual([newest[0]]);
      expect(page.nextCursor).not.toBeNull();
    } finally {
      await locker.query("rollback");
      locker.release();
    }
  });

  it("leaves another team's events out of an indexed search", async () => {
    const mine = await insert(Buffer.from("shared-needle mine"), [], HOUR);
    const strangerId = uuidv7();
    const theirEndpoint = uuidv7();
    await db.query("insert into users (id, email, password_hash) values ($1, $2, 'x')", [strangerId, `${strangerId}@example.com`]);
    await db.query("insert into endpoints (id, team_id, name, slug, secret) values ($1, $2, 'theirs', $3, 'whsec_x')", [theirEndpoint, await insertPersonalTeam(db, strangerId), `t-${theirEndpoint.slice(-12)}`]);
    await db.query(
      `insert into events (id, endpoint_id, received_at, method, path, query, headers, body, size_bytes, source, event_type, status)
       values ($1, $2, now(), 'POST', '', '', '[]', convert_to('shared-needle theirs', 'UTF8'), 20, 'unknown', 'unknown', 'captured')`,
      [createUuidV7Generator()(Date.now() - HOUR), theirEndpoint],
    );
    await restartSearchIndex(pool, uuidv7Floor(Date.now() - DAY));
    await indexNextEvents(pool, uuidv7Floor(Date.now()), 1_000);
    expect(Number((await db.query("select count(*) as n from event_search"))[0]!.n)).toBe(2);
    expect(await search("shared-needle")).toEqual([mine]);
  });
});
