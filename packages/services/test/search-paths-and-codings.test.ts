import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from "node:zlib";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createUuidV7Generator, SEARCHED_BODY_BYTES, silentLogger, uuidv7, uuidv7Floor } from "@rehook/core";
import { createOrm, createPool, eventIdsMatchingSearch, indexNextEvents, restartSearchIndex, type Orm, type Pool, type RunningJob } from "@rehook/db";
import { createTestDatabase, insertPersonalTeam, type TestDatabase } from "../../../tooling/vitest/src/postgres.js";
import { listEvents, searchIndexing } from "../src/index.js";

// Search finds what a user types, against a real PostgreSQL: the request's sub-path and query
// string, and the decoded text of gzip, deflate and br bodies, whether the events are read
// from their bodies, through the search index, or by the live feed's check.

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
  await db.query("insert into users (id, email, password_hash) values ($1, 'typed@example.com', 'x')", [userId]);
  teamId = await insertPersonalTeam(db, userId);
});
beforeEach(async () => {
  await db.query("delete from endpoints");
  await db.query("delete from events");
  await db.query("delete from event_search_state");
  await db.query("delete from event_search");
  endpointId = uuidv7();
  await db.query("insert into endpoints (id, team_id, name, slug, secret) values ($1, $2, 'typed', $3, 'whsec_x')", [endpointId, teamId, `t-${endpointId.slice(-12)}`]);
});
afterAll(async () => {
  await orm.close(true);
  await pool.end();
  await db.drop();
});

interface Stored {
  body?: Buffer;
  headers?: Array<[string, string]>;
  path?: string;
  query?: string;
  ageMs: number;
}

/** Stores an event received `ageMs` ago, as capture would. */
async function insert({ body = Buffer.from("{}"), headers = [], path = "", query = "", ageMs }: Stored): Promise<string> {
  const id = createUuidV7Generator()(Date.now() - ageMs);
  await db.query(
    `insert into events (id, endpoint_id, received_at, method, path, query, headers, body, size_bytes, source, event_type, status)
     values ($1, $2, now(), 'POST', $3, $4, $5, $6, $7, 'unknown', 'unknown', 'captured')`,
    [id, endpointId, path, query, JSON.stringify(headers), body, body.length],
  );
  return id;
}

const search = async (text: string, extra: Record<string, unknown> = {}) =>
  (await listEvents({ orm }, { teamId, search: text, limit: 100, ...extra })).events.map((event) => event.id);

/** The index made complete for every event stored so far. */
async function indexEverything() {
  await restartSearchIndex(pool, uuidv7Floor(Date.now() - 3 * DAY));
  for (let more = true; more; ) more = (await indexNextEvents(pool, uuidv7Floor(Date.now() + 60_000), 1_000)).more;
}

const json = (text: string) => Buffer.from(JSON.stringify({ note: text }));

describe("search of the request's sub-path and query string", () => {
  it("finds a path segment and a query-string value, read from bodies and through the index", async () => {
    const order = await insert({ path: "/orders/ord_8812", query: "attempt=3&tenant=Acme-West", ageMs: 3 * HOUR });
    const plain = await insert({ path: "/hooks", ageMs: 2 * HOUR });
    await insert({ body: json("nothing to see"), ageMs: HOUR });

    const answers = async () => ({
      segment: await search("ORD_8812"),
      value: await search("acme-west"),
      pathAndQuery: await search("/orders/ord_8812?attempt=3"),
      questionMark: await search("?"),
      hooks: await search("/hooks"),
    });
    const scanned = await answers();
    expect(scanned).toEqual({ segment: [order], value: [order], pathAndQuery: [order], questionMark: [order], hooks: [plain] });

    await indexEverything();
    expect(Number((await db.query("select count(*) as n from event_search where request_text <> ''"))[0]!.n)).toBe(2);
    // Were the events read for the indexed range, the changed path would no longer match.
    await db.query("update events set path = '/elsewhere', query = '' where id = $1", [order]);
    expect(await answers()).toEqual(scanned);
  });

  it("keeps another team's paths out, and the live feed's check finds a path too", async () => {
    const mine = await insert({ path: "/shared/segment-77", ageMs: HOUR });
    const strangerId = uuidv7();
    const theirEndpoint = uuidv7();
    await db.query("insert into users (id, email, password_hash) values ($1, $2, 'x')", [strangerId, `${strangerId}@example.com`]);
    await db.query("insert into endpoints (id, team_id, name, slug, secret) values ($1, $2, 'theirs', $3, 'whsec_x')", [theirEndpoint, await insertPersonalTeam(db, strangerId), `o-${theirEndpoint.slice(-12)}`]);
    await db.query(
      `insert into events (id, endpoint_id, received_at, method, path, query, headers, body, size_bytes, source, event_type, status)
       values ($1, $2, now(), 'POST', '/shared/segment-77', '', '[]', '', 0, 'unknown', 'unknown', 'captured')`,
      [createUuidV7Generator()(Date.now() - HOUR), theirEndpoint],
    );
    expect(await search("segment-77")).toEqual([mine]);
    await indexEverything();
    expect(await search("segment-77")).toEqual([mine]);
    expect([...(await eventIdsMatchingSearch(orm.em.fork(), [mine], "SEGMENT-77"))]).toEqual([mine]);
  });
});

describe("search of compressed bodies", () => {
  const text = (word: string) => json(`the customer ${word} paid`);
  const headers = (encoding: string): Array<[string, string]> => [
    ["Content-Type", "application/json"],
    ["Content-Encoding", encoding],
  ];

  async function corpus() {
    return {
      gzip: await insert({ body: gzipSync(text("gzipped-Quokka")), headers: headers("gzip"), ageMs: 2 * HOUR }),
      deflate: await insert({ body: deflateSync(text("deflated-Quokka")), headers: headers("deflate"), ageMs: 3 * HOUR }),
      rawDeflate: await insert({ body: deflateRawSync(text("raw-deflated-Quokka")), headers: headers("Deflate"), ageMs: 4 * HOUR }),
      br: await insert({ body: brotliCompressSync(text("brotli-Quokka")), headers: headers("br"), ageMs: 5 * HOUR }),
      twice: await insert({ body: brotliCompressSync(gzipSync(text("twice-Quokka"))), headers: [["content-encoding", "gzip"], ["content-encoding", "br"]], ageMs: 6 * HOUR }),
      // Labelled gzip but sent as it is: searched as received.
      mislabelled: await insert({ body: text("mislabelled-Quokka"), headers: headers("gzip"), ageMs: 7 * HOUR }),
      // A coding Rehook does not decode: its bytes as received.
      unknown: await insert({ body: text("zstd-Quokka"), headers: headers("zstd"), ageMs: 8 * HOUR }),
      // A bomb: 50 MiB of spaces, then a word no search may reach (only the decoded text's first bytes are searched).
      bomb: await insert({ body: gzipSync(Buffer.concat([Buffer.alloc(50 * 1024 * 1024, 0x20), Buffer.from("past-the-bomb")])), headers: headers("gzip"), ageMs: 9 * HOUR }),
      // The compressed bytes themselves are not searched: this token is in them, not in the text.
      plain: await insert({ body: text("plain-Quokka"), ageMs: 10 * HOUR }),
    };
  }

  async function answers() {
    return {
      gzip: await search("gzipped-quokka"),
      deflate: await search("deflated-quokka"),
      rawDeflate: await search("raw-deflated-quokka"),
      br: await search("BROTLI-quokka"),
      twice: await search("twice-quokka"),
      mislabelled: await search("mislabelled-quokka"),
      unknown: await search("zstd-quokka"),
      bomb: await search("past-the-bomb"),
      quokka: await search("quokka"),
      encodingHeader: await search("content-encoding"),
    };
  }

  it("finds a word in gzip, deflate and br bodies, read from bodies and through the index alike", async () => {
    const events = await corpus();
    const scanned = await answers();
    expect(scanned).toEqual({
      gzip: [events.gzip],
      deflate: [events.deflate, events.rawDeflate],
      rawDeflate: [events.rawDeflate],
      br: [events.br],
      twice: [events.twice],
      mislabelled: [events.mislabelled],
      unknown: [events.unknown],
      bomb: [],
      quokka: [events.gzip, events.deflate, events.rawDeflate, events.br, events.twice, events.mislabelled, events.unknown, events.plain],
      encodingHeader: [events.gzip, events.deflate, events.rawDeflate, events.br, events.twice, events.mislabelled, events.unknown, events.bomb],
    });

    await indexEverything();
    const stored = await db.query<{ body_text: string }>("select body_text from event_search where id = $1", [events.gzip]);
    expect(stored[0]!.body_text).toBe(text("gzipped-Quokka").toString("latin1"));
    const bomb = await db.query<{ n: number }>("select length(body_text) as n from event_search where id = $1", [events.bomb]);
    expect(bomb[0]!.n).toBe(SEARCHED_BODY_BYTES);
    // Were the events read for the indexed range, the emptied bodies would no longer match.
    await db.query("update events set body = '' where id <> $1", [events.plain]);
    expect(await answers()).toEqual(scanned);
  });

  it("reads on past compressed bodies that do not match until the page is full", async () => {
    // All in one of the window's time slices (30 min), the match the oldest: a page of 1 reads 2 rows at a time.
    const match = await insert({ body: gzipSync(text("deep-Numbat")), headers: headers("gzip"), ageMs: 80 * 60_000 });
    for (let k = 0; k < 5; k += 1) await insert({ body: gzipSync(text(`other ${k}`)), headers: headers("gzip"), ageMs: (70 + k) * 60_000 });
    const page = await listEvents({ orm }, { teamId, search: "deep-numbat", limit: 1 });
    expect(page.events.map((event) => event.id)).toEqual([match]);
    expect(page.nextCursor).toBeNull();
  });

  it("is decoded by the live feed's check and by the index job", async () => {
    // A question mark and a quote in the text: the decoded texts go to PostgreSQL as one bound value (the ORM reads a bare ? as a placeholder).
    const gzip = await insert({ body: gzipSync(text(`live-Wombat? it's "here"`)), headers: headers("gzip"), ageMs: 10 * 60_000 });
    const other = await insert({ body: gzipSync(text("other")), headers: headers("gzip"), ageMs: 10 * 60_000 });
    expect([...(await eventIdsMatchingSearch(orm.em.fork(), [gzip, other], "live-wombat? it's"))]).toEqual([gzip]);

    const job: RunningJob = { id: "1", key: "all", payload: {}, attempt: 1, signal: new AbortController().signal };
    await searchIndexing({ pool, logger: silentLogger }).run(job);
    const rows = await db.query<{ id: string; body_text: string }>("select id, body_text from event_search order by id");
    expect(rows.map((row) => row.id).sort()).toEqual([gzip, other].sort());
    expect(rows.find((row) => row.id === gzip)!.body_text).toContain("live-Wombat");
  });
});
