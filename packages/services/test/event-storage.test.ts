import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createUuidV7Generator, silentLogger, uuidv7, uuidv7Floor, type EventStatus } from "@rehook/core";
import {
  compactEventCounts,
  createOrm,
  createPool,
  deleteOwnedEndpoint,
  ensureEventPartitions,
  eventPartitions,
  GroupCommitWriter,
  type JobHandler,
  type Orm,
  type Pool,
  type RunningJob,
} from "@rehook/db";
import { eventCountMismatches } from "../../../tooling/vitest/src/event-counts.js";
import { createTestDatabase, insertPersonalTeam, type TestDatabase } from "../../../tooling/vitest/src/postgres.js";
import { endpointPurge, eventRetention, listEvents } from "../src/index.js";

// Events at scale, against a real PostgreSQL: listing by keyset with every filter, counts
// kept in step with the events through captures, status changes and purges, retention by
// partition and by batch, and an endpoint delete whose purge runs in the background.

const DAY = 86_400_000;
let db: TestDatabase;
let pool: Pool;
let orm: Orm;
let teamId: string;

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ databaseUrl: db.url, max: 4 });
  orm = await createOrm({ databaseUrl: db.url, poolSize: 2 });
  const userId = uuidv7();
  await db.query("insert into users (id, email, password_hash) values ($1, 'scale@example.com', 'x')", [userId]);
  teamId = await insertPersonalTeam(db, userId);
});
beforeEach(async () => {
  await db.query("delete from endpoints");
  await db.query("delete from events");
  await db.query("delete from event_counts");
});
afterAll(async () => {
  await orm.close(true);
  await pool.end();
  await db.drop();
});

async function endpoint(options: { retentionDays?: number | null } = {}): Promise<{ id: string; slug: string }> {
  const id = uuidv7();
  const slug = `s-${id.slice(-12)}`;
  await db.query("insert into endpoints (id, team_id, name, slug, secret, retention_days) values ($1, $2, $3, $4, 'whsec_x', $5)", [
    id,
    teamId,
    slug,
    slug,
    options.retentionDays ?? null,
  ]);
  return { id, slug };
}

/**
 * Stores events as if captured `ageMs` ago (ids and received_at of that time), with their
 * counts, the way the capture statement does. Answers their ids, oldest first.
 */
async function stored(endpointId: string, count: number, options: { ageMs?: number; status?: EventStatus; source?: string; eventType?: string } = {}): Promise<string[]> {
  const at = Date.now() - (options.ageMs ?? 0);
  // A generator of its own: the shared one never goes back in time.
  const makeId = createUuidV7Generator();
  const ids = Array.from({ length: count }, (_, i) => makeId(at + i));
  const status = options.status ?? "captured";
  await db.query(
    `insert into events (id, endpoint_id, received_at, method, path, query, headers, body, size_bytes, source, event_type, status)
     select t.id, $1, to_timestamp(($5::float8 + t.n - 1) / 1000), 'POST', '', '', '[]', '\\x7b7d', 2, $3, $4, $2
     from unnest($6::uuid[]) with ordinality as t(id, n)`,
    [endpointId, status, options.source ?? "unknown", options.eventType ?? "unknown", at, ids],
  );
  await db.query("insert into event_counts (endpoint_id, status, n) values ($1, $2, $3)", [endpointId, status, count]);
  return ids;
}

/** event_counts summed agree with a real count of the events, per endpoint and status. */
async function countsAgree(): Promise<void> {
  expect(await eventCountMismatches(db)).toEqual([]);
}

const job = (key = "all"): RunningJob => ({ id: "1", key, payload: {}, attempt: 1, signal: new AbortController().signal });

async function runUntilIdle(handler: JobHandler, key?: string): Promise<void> {
  for (let runs = 0; runs < 100; runs += 1) {
    const verdict = await handler.run(job(key));
    if (verdict.kind !== "later" || verdict.inMs > 0) return;
  }
  throw new Error("the job never finished");
}

const ids = (page: { events: Array<{ id: string }> }) => page.events.map((event) => event.id);

/** Captures through the group-commit writer, as the capture URL does. */
function capturer(slug: string): () => Promise<{ kind: string }> {
  const writer = new GroupCommitWriter(pool);
  return () => {
    const id = uuidv7();
    return writer.write({ id, slug, receivedAt: new Date(), method: "POST", path: "", query: "", headers: [], body: Buffer.from("{}"), contentType: null, clientIp: null, source: "unknown", eventType: "unknown" });
  };
}

describe("listing", () => {
  it("pages by cursor through every event once while new ones arrive, newest first", async () => {
    const { id, slug } = await endpoint();
    const capture = capturer(slug);
    for (let i = 0; i < 120; i += 1) await capture();
    const seen: string[] = [];
    let before: string | undefined;
    let pages = 0;
    do {
      const page = await listEvents({ orm }, { teamId, endpointId: id, limit: 25, ...(before ? { before } : {}) });
      seen.push(...ids(page));
      before = page.nextCursor ?? undefined;
      // New events keep arriving between pages.
      await Promise.all(Array.from({ length: 10 }, capture));
      pages += 1;
    } while (before);
    const expected = (await db.query<{ id: string }>("select id from events where endpoint_id = $1 and id <= $2 order by id desc", [id, seen[0]])).map((row) => row.id);
    expect(pages).toBe(5);
    expect(seen).toEqual(expected);
    expect(new Set(seen).size).toBe(120);
    await countsAgree();
  });

  it("filters by status, source, event type and time, combined, with exact or capped totals", async () => {
    const a = await endpoint();
    const b = await endpoint();
    const oldStripe = await stored(a.id, 3, { ageMs: 3 * DAY, status: "delivered", source: "stripe", eventType: "invoice.paid" });
    const newStripe = await stored(a.id, 4, { ageMs: 60_000, status: "failed", source: "stripe", eventType: "invoice.paid" });
    const github = await stored(b.id, 5, { ageMs: 30_000, status: "failed", source: "github", eventType: "push" });
    const list = (filter: Parameters<typeof listEvents>[1]) => listEvents({ orm }, { ...filter, withTotal: true, limit: 100 });

    const failed = await list({ teamId, status: "failed" });
    expect(ids(failed)).toEqual([...github].reverse().concat([...newStripe].reverse()));
    expect(failed.total).toEqual({ value: 9, capped: false });
    expect((await list({ teamId, endpointId: a.id, status: "delivered" })).total).toEqual({ value: 3, capped: false });

    const stripe = await list({ teamId, source: "stripe" });
    expect(ids(stripe)).toEqual([...oldStripe, ...newStripe].reverse());
    expect(stripe.total).toEqual({ value: 7, capped: false });
    expect(ids(await list({ teamId, eventType: "push" }))).toEqual([...github].reverse());

    const lastDay = await list({ teamId, source: "stripe", receivedAfter: new Date(Date.now() - DAY) });
    expect(ids(lastDay)).toEqual([...newStripe].reverse());
    const before2Days = await list({ teamId, receivedBefore: new Date(Date.now() - 2 * DAY) });
    expect(ids(before2Days)).toEqual([...oldStripe].reverse());
    const window = await list({ teamId, status: "failed", receivedAfter: new Date(Date.now() - 50_000), receivedBefore: new Date() });
    expect(ids(window)).toEqual([...github].reverse());

    // An offset page reads past the first events; deeper than the maximum is refused with what to do.
    expect(ids(await listEvents({ orm }, { teamId, status: "failed", offset: 5, limit: 2 }))).toEqual([newStripe[3], newStripe[2]]);
    await expect(listEvents({ orm }, { teamId, offset: 10_001 })).rejects.toThrow(/cursor/);
    await expect(listEvents({ orm }, { teamId, offset: 5, before: github[0] })).rejects.toThrow(/either offset or cursor/);
  });
});

describe("search", () => {
  it("finds text in bodies (whatever their bytes) and headers, case-insensitively, in the last day unless told", async () => {
    const { id } = await endpoint();
    const insert = async (body: Buffer, headers: Array<[string, string]>, ageMs = 0) => {
      const eventId = createUuidV7Generator()(Date.now() - ageMs);
      await db.query(
        `insert into events (id, endpoint_id, received_at, method, path, query, headers, body, size_bytes, source, event_type, status)
         values ($1, $2, now(), 'POST', '', '', $3, $4, $5, 'unknown', 'unknown', 'captured')`,
        [eventId, id, JSON.stringify(headers), body, body.length],
      );
      return eventId;
    };
    const json = await insert(Buffer.from('{"customer":"Ada Lovelace","note":"50%_off"}'), []);
    const binary = await insert(Buffer.concat([Buffer.from([0xff, 0x00, 0xfe]), Buffer.from("ORDER-42"), Buffer.from([0x80])]), []);
    const header = await insert(Buffer.from("{}"), [["X-Request-Id", "req-Needle-1"]]);
    const accented = await insert(Buffer.from("café crème"), []);
    const old = await insert(Buffer.from("ada lovelace, two days ago"), [], 2 * DAY);
    const deep = await insert(Buffer.concat([Buffer.alloc(70 * 1024, 0x20), Buffer.from("beyond the searched part")]), []);
    const search = async (text: string, extra: Record<string, unknown> = {}) => ids(await listEvents({ orm }, { teamId, search: text, limit: 100, ...extra }));

    expect(await search("ada LOVELACE")).toEqual([json]);
    expect(await search("ada lovelace", { receivedAfter: new Date(Date.now() - 3 * DAY) })).toEqual([json, old]);
    expect(await search("order-42")).toEqual([binary]);
    expect(await search("needle")).toEqual([header]);
    expect(await search("café")).toEqual([accented]);
    expect(await search("50%_off")).toEqual([json]);
    expect(await search("50%")).toEqual([json]);
    expect(await search("5_%")).toEqual([]);
    expect(await search("beyond the searched part")).toEqual([]);
    expect(deep).toBeDefined();
    // A search's total counts what it found up to the page: capped when more lie beyond it.
    expect((await listEvents({ orm }, { teamId, search: "a", withTotal: true })).total).toEqual({ value: 2, capped: false });
    expect((await listEvents({ orm }, { teamId, search: "a", withTotal: true, limit: 1 })).total).toEqual({ value: 1, capped: true });
  });

  it("pages a search by cursor across the window's time slices: every match once, newest first, only the team's", async () => {
    const mine = await endpoint();
    const other = await endpoint();
    // Matches spread over the day (several per slice, slices with none), and non-matches between them.
    const ages = [5, 40, 41, 42, 200, 400, 401, 900, 1_300, 1_420].map((minutes) => minutes * 60_000);
    const matches: string[] = [];
    for (const ageMs of ages) {
      matches.push(...(await stored(mine.id, 1, { ageMs, source: "needle-7f3a" })));
      await stored(mine.id, 3, { ageMs: ageMs + 1_000 });
    }
    await db.query("update events set body = convert_to('{\"ref\":\"NEEDLE-7f3a\"}', 'UTF8') where source = 'needle-7f3a'");
    // Another team's match, in the same window.
    const stranger = uuidv7();
    await db.query("insert into users (id, email, password_hash) values ($1, $2, 'x')", [stranger, `${stranger}@example.com`]);
    const theirs = await stored(other.id, 1, { ageMs: 60_000 });
    await db.query("update endpoints set team_id = $1 where id = $2", [await insertPersonalTeam(db, stranger), other.id]);
    await db.query("update events set body = convert_to('needle-7f3a', 'UTF8') where id = $1", [theirs[0]]);

    const found: string[] = [];
    let before: string | undefined;
    for (let page = 0; page < 10; page += 1) {
      const result = await listEvents({ orm }, { teamId, search: "needle-7F3A", limit: 3, ...(before ? { before } : {}) });
      found.push(...ids(result));
      if (!result.nextCursor) break;
      before = result.nextCursor;
    }
    // Ages ascend: the matches were made newest first.
    expect(found).toEqual(matches);
    // An offset page and an endpoint filter read the same slices.
    expect(ids(await listEvents({ orm }, { teamId, search: "needle-7f3a", limit: 2, offset: 3 }))).toEqual(matches.slice(3, 5));
    expect(ids(await listEvents({ orm }, { teamId, search: "needle-7f3a", endpointId: other.id }))).toEqual([]);
  });
});

describe("counts, purges and retention", () => {
  it("keeps counts equal to the events through captures, status changes, folds and purges", async () => {
    const { id, slug } = await endpoint();
    const capture = capturer(slug);
    // Two waves: at least two batches, so two delta rows to fold.
    await Promise.all(Array.from({ length: 30 }, capture));
    await Promise.all(Array.from({ length: 30 }, capture));
    await countsAgree();
    expect(await compactEventCounts(pool)).toBeGreaterThan(0);
    await countsAgree();
    const rows = await db.query<{ n: string }>("select count(*)::text as n from event_counts where endpoint_id = $1", [id]);
    expect(rows[0]!.n).toBe("1");
  });

  it("deletes an endpoint at once and purges its events in the background while others capture", async () => {
    const doomed = await endpoint();
    const other = await endpoint();
    const many = await stored(doomed.id, 12_000);
    await db.query("insert into delivery_attempts (event_id, attempt, started_at, latency_ms, outcome) select id, 1, now(), 1, 'failed' from events where endpoint_id = $1 limit 100", [
      doomed.id,
    ]);
    const started = Date.now();
    expect(await deleteOwnedEndpoint(orm.em.fork(), teamId, { id: doomed.id })).toBe(doomed.id);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(await listEvents({ orm }, { teamId, endpointId: doomed.id })).toEqual({ events: [], nextCursor: null });

    const captures = Promise.all(Array.from({ length: 200 }, capturer(other.slug)));
    await runUntilIdle(endpointPurge(pool), doomed.id);
    expect((await captures).every((result) => result.kind === "stored")).toBe(true);
    expect(many).toHaveLength(12_000);
    expect(await db.query("select 1 from events where endpoint_id = $1", [doomed.id])).toHaveLength(0);
    expect(await db.query("select 1 from delivery_attempts")).toHaveLength(0);
    expect(await db.query("select 1 from event_counts where endpoint_id = $1", [doomed.id])).toHaveLength(0);
    await countsAgree();
  });

  it("purges in batches what an endpoint keeps for less than the others, and keeps what is kept for ever", async () => {
    const short = await endpoint({ retentionDays: 7 });
    const usual = await endpoint();
    const forever = await endpoint({ retentionDays: 0 });
    const shortOld = await stored(short.id, 30, { ageMs: 10 * DAY });
    const shortNew = await stored(short.id, 5, { ageMs: 3 * DAY });
    const usualOld = await stored(usual.id, 20, { ageMs: 40 * DAY });
    const usualNew = await stored(usual.id, 5, { ageMs: 20 * DAY });
    const foreverOld = await stored(forever.id, 10, { ageMs: 400 * DAY });
    // One endpoint keeps for ever: no partition may be dropped, the others are purged by batch.
    await runUntilIdle(eventRetention({ pool, logger: silentLogger, defaultDays: 30 }));
    const left = new Set((await db.query<{ id: string }>("select id from events")).map((row) => row.id));
    expect([...shortOld, ...usualOld].some((id) => left.has(id))).toBe(false);
    expect([...shortNew, ...usualNew, ...foreverOld].every((id) => left.has(id))).toBe(true);
    await countsAgree();
  });

  it("drops whole partitions that every endpoint's retention has passed", async () => {
    const usual = await endpoint();
    // Partitions for the last three days, as a service running for a while has them.
    await ensureEventPartitions(pool, Date.now(), { behind: 3, ahead: 1 });
    const recent = await stored(usual.id, 10, { ageMs: DAY });
    const inPartition = await db.query<{ partition: string }>("select distinct tableoid::regclass::text as partition from events where id = any($1::uuid[])", [recent]);
    expect(inPartition).toEqual([{ partition: expect.stringMatching(/^events_p\d{8}$/) }]);
    // Older than any partition: the default partition holds it.
    const ancient = await stored(usual.id, 3, { ageMs: 400 * DAY });
    // Sixty days on (an injected clock): the partitions holding today's events and older are past 30 days.
    const later = Date.now() + 60 * DAY;
    await runUntilIdle(eventRetention({ pool, logger: silentLogger, defaultDays: 30, now: () => later }));
    const partitions = await eventPartitions(pool);
    expect(partitions.every((partition) => partition.to > uuidv7Floor(later - 30 * DAY))).toBe(true);
    expect(partitions.some((partition) => partition.to > uuidv7Floor(later + 13 * DAY))).toBe(true);
    expect(await db.query("select 1 from events where id = any($1::uuid[])", [[...recent, ...ancient]])).toHaveLength(0);
    expect(await db.query("select 1 from pg_class where relname = $1", [inPartition[0]!.partition])).toHaveLength(0);
    await countsAgree();
  });
});
