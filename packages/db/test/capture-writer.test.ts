import { performance } from "node:perf_hooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uuidv7, type HeaderList } from "@rehook/core";
import { createTestDatabase, insertUserWithTeam, type TestDatabase } from "../../../tooling/vitest/src/postgres.js";
import { createOrm, createPool, EventBus, type BusMessage, deleteOwnedEndpoint, GroupCommitWriter, purgeEndpointEvents, type CapturedRequest, type Pool } from "../src/index.js";

let db: TestDatabase;
let pool: Pool;
let teamId: string;

/** An endpoint, forwarding to a first destination (position 0) when `destination` is given. */
async function insertEndpoint(slug: string, destination: string | null = null): Promise<string> {
  const id = uuidv7();
  await db.query("insert into endpoints (id, team_id, name, slug, secret) values ($1, $2, $3, $4, 'whsec_x')", [id, teamId, slug, slug]);
  if (destination !== null) {
    await db.query(
      `insert into destinations (id, endpoint_id, position, name, url, created_at, updated_at) values (gen_random_uuid(), $1, 0, 'example.com', $2, now(), now())`,
      [id, destination],
    );
  }
  return id;
}

function request(slug: string, body: string | Buffer = "{}", fields: Partial<CapturedRequest> = {}): CapturedRequest {
  return {
    id: uuidv7(),
    slug,
    receivedAt: new Date(),
    method: "POST",
    path: "",
    query: "",
    headers: [["Content-Type", "application/json"]],
    body: Buffer.from(body),
    contentType: "application/json",
    clientIp: "127.0.0.1",
    source: "unknown",
    eventType: "unknown",
    ...fields,
  };
}

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ databaseUrl: db.url, max: 4 });
  teamId = await insertUserWithTeam(db, "w@example.com");
});
afterAll(async () => {
  await pool.end();
  await db.drop();
});

describe("group commit writer", () => {
  it("stores a burst in few statements and settles each caller with its own row", async () => {
    await insertEndpoint("burst-aaaaaaaa");
    const writer = new GroupCommitWriter(pool, { maxRows: 100, maxInFlight: 2 });
    const requests = Array.from({ length: 1000 }, (_, i) => request("burst-aaaaaaaa", JSON.stringify({ i })));
    const results = await Promise.all(requests.map((r) => writer.write(r)));
    expect(results.every((r) => r.kind === "stored" && r.status === "captured")).toBe(true);
    const rows = await db.query<{ id: string; body: Buffer }>("select id, body from events where id = any($1::uuid[])", [requests.map((r) => r.id)]);
    expect(rows).toHaveLength(1000);
    // All 1000 rows arrived in the same turn of the event loop; at most 100 rows go per statement.
    const transactions = await db.query<{ n: number }>("select count(distinct xmin::text)::int as n from events where id = any($1::uuid[])", [requests.map((r) => r.id)]);
    expect(transactions[0]!.n).toBeLessThanOrEqual(10);
    expect(transactions[0]!.n).toBeGreaterThanOrEqual(10);
  });

  it("announces every stored event on the bus from its own statement, through EventBus as one message each", async () => {
    const endpointId = await insertEndpoint("announced-aaaaaaaa", "https://example.com/");
    const bus = await EventBus.connect(db.url);
    const heard: BusMessage[] = [];
    bus.subscribe((message) => heard.push(message));
    try {
      // 400 events: three NOTIFYs of at most 160 ids each, under the 8,000-byte payload limit.
      const writer = new GroupCommitWriter(pool, { maxRows: 1000 });
      const requests = Array.from({ length: 400 }, () => request("announced-aaaaaaaa"));
      await Promise.all(requests.map((r) => writer.write(r)));
      await expect.poll(() => heard.length).toBe(400);
      const created = heard.flatMap((m) => (m.type === "event.created" ? [m] : []));
      expect(created).toHaveLength(heard.length);
      expect(new Set(created.map((m) => m.id))).toEqual(new Set(requests.map((r) => r.id)));
      expect(created.every((m) => m.endpointId === endpointId && m.teamId === teamId && m.status === "pending")).toBe(true);
    } finally {
      await bus.close();
    }
  });

  it("runs one statement at a time, and starts another only when the first has run for overlapAfterMs", async () => {
    await insertEndpoint("held-aaaaaaaa");
    await insertEndpoint("free-aaaaaaaa");
    // Another transaction holds the first endpoint's row: a capture to it waits for the lock.
    const holder = await pool.connect();
    await holder.query("begin");
    await holder.query("select 1 from endpoints where slug = 'held-aaaaaaaa' for update");
    try {
      const writer = new GroupCommitWriter(pool, { overlapAfterMs: 300 });
      const started = performance.now();
      const held = writer.write(request("held-aaaaaaaa"));
      let heldSettled = false;
      void held.finally(() => (heldSettled = true));
      // Waits of this test's database only: other test files share the server (a row lock's wait has no database of its own).
      const waiting = "select count(*)::int as n from pg_locks l join pg_stat_activity a on a.pid = l.pid where not l.granted and a.datname = current_database()";
      await expect.poll(async () => (await db.query<{ n: number }>(waiting))[0]!.n).toBe(1);
      await expect(writer.write(request("free-aaaaaaaa"))).resolves.toMatchObject({ kind: "stored" });
      // Not before the first had run for overlapAfterMs (timers never fire early), and while it still waits.
      expect(performance.now() - started).toBeGreaterThanOrEqual(299);
      expect(heldSettled).toBe(false);
      await holder.query("commit");
      await expect(held).resolves.toMatchObject({ kind: "stored" });
    } finally {
      await holder.query("rollback").catch(() => undefined);
      holder.release();
    }
  });

  it("answers unknown_endpoint for a slug that does not exist, without failing its batch", async () => {
    await insertEndpoint("known-bbbbbbbb", "https://example.com/");
    const writer = new GroupCommitWriter(pool);
    const [known, unknown] = await Promise.all([writer.write(request("known-bbbbbbbb")), writer.write(request("missing-cccccccc"))]);
    expect(known).toMatchObject({ kind: "stored", status: "pending" });
    expect(unknown).toEqual({ kind: "unknown_endpoint" });
  });

  it("stores forwarded events already leased while the fast path has room, and unleased once it has none", async () => {
    await insertEndpoint("leased-ffffffff", "https://example.com/");
    await insertEndpoint("capture-gggggggg");
    let room = true;
    const writer = new GroupCommitWriter(pool, { fastPath: { leaseMs: 60_000, hasRoom: () => room } });
    const [forwarded, captured] = [request("leased-ffffffff"), request("capture-gggggggg")];
    const results = await Promise.all([writer.write(forwarded), writer.write(captured)]);
    expect(results[0]).toMatchObject({ kind: "stored", status: "pending", forwarding: { routes: [{ url: "https://example.com/", leased: true }] } });
    expect(results[1]).toMatchObject({ kind: "stored", status: "captured", forwarding: { routes: [] } });
    room = false;
    const later = request("leased-ffffffff");
    expect(await writer.write(later)).toMatchObject({ kind: "stored", status: "pending", forwarding: { routes: [{ url: "https://example.com/", leased: false }] } });

    const rows = await db.query<{ id: string; leased_for_s: number | null; attempts: number }>(
      "select event_id as id, extract(epoch from lease_expires_at - now())::float8 as leased_for_s, attempts from deliveries where event_id = any($1::uuid[])",
      [[forwarded.id, captured.id, later.id]],
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    // An only delivery leased to the fast path has its lease on the event, and no row until its result.
    expect(byId.has(forwarded.id)).toBe(false);
    const leases = await db.query<{ id: string; destination: string | null; leased_for_s: number | null }>(
      `select e.id, t.url as destination, extract(epoch from e.fast_path_lease_expires_at - now())::float8 as leased_for_s
       from events e left join destinations t on t.id = e.fast_path_destination_id where e.id = any($1::uuid[])`,
      [[forwarded.id, captured.id, later.id]],
    );
    const leaseOf = new Map(leases.map((row) => [row.id, row]));
    expect(leaseOf.get(forwarded.id)!.destination).toBe("https://example.com/");
    expect(leaseOf.get(forwarded.id)!.leased_for_s).toBeGreaterThan(50);
    expect(leaseOf.get(later.id)).toMatchObject({ destination: null, leased_for_s: null });
    // A capture-only endpoint's event has no delivery at all.
    expect(byId.has(captured.id)).toBe(false);
    expect(byId.get(later.id)).toMatchObject({ leased_for_s: null, attempts: 0 });
    const events = await db.query<{ id: string; destination_url: string | null }>("select id, destination_url from events where id = any($1::uuid[])", [
      [forwarded.id, captured.id, later.id],
    ]);
    expect(Object.fromEntries(events.map((row) => [row.id, row.destination_url]))).toEqual({
      [forwarded.id]: "https://example.com/",
      [captured.id]: null,
      [later.id]: "https://example.com/",
    });

    // An event with two deliveries keeps them as rows, each leased to the fast path, its event holding none.
    const fannedId = await insertEndpoint("fanned-hhhhhhhh", "https://example.com/a");
    await db.query(
      `insert into destinations (id, endpoint_id, position, name, url, created_at, updated_at) values (gen_random_uuid(), $1, 1, 'b', 'https://example.com/b', now(), now())`,
      [fannedId],
    );
    room = true;
    const fanned = request("fanned-hhhhhhhh");
    expect(await writer.write(fanned)).toMatchObject({ kind: "stored", status: "pending", forwarding: { routes: [{ leased: true }, { leased: true }] } });
    expect(
      await db.query("select attempts, lease_expires_at > now() as leased from deliveries where event_id = $1", [fanned.id]),
    ).toEqual([{ attempts: 1, leased: true }, { attempts: 1, leased: true }]);
    expect(await db.query("select fast_path_destination_id from events where id = $1", [fanned.id])).toEqual([{ fast_path_destination_id: null }]);
  });

  it("a delete racing captures fails only the deleted endpoint's captures and leaves none of its events once purged", async () => {
    const doomedId = await insertEndpoint("doomed-dddddddd", "https://example.com/doomed");
    await insertEndpoint("steady-eeeeeeee");
    const writer = new GroupCommitWriter(pool, { maxRows: 20 });
    const committedBefore = await Promise.all(Array.from({ length: 50 }, () => writer.write(request("doomed-dddddddd"))));
    expect(committedBefore.every((r) => r.kind === "stored")).toBe(true);
    expect(await db.query("select 1 from deliveries where endpoint_id = $1", [doomedId])).toHaveLength(50);

    const orm = await createOrm({ databaseUrl: db.url, poolSize: 2 });
    try {
      const writes: Array<Promise<{ slug: string; kind: string }>> = [];
      let deletion: Promise<string | undefined> | undefined;
      for (let i = 0; i < 400; i += 1) {
        const slug = i % 2 === 0 ? "doomed-dddddddd" : "steady-eeeeeeee";
        writes.push(writer.write(request(slug)).then((r) => ({ slug, kind: r.kind })));
        if (i === 200) {
          await new Promise((resolve) => setImmediate(resolve)); // let the first batches go out
          deletion = deleteOwnedEndpoint(orm.em.fork(), teamId, { slug: "doomed-dddddddd" });
        }
      }
      const outcomes = await Promise.all(writes);
      expect(await deletion).toBe(doomedId);
      expect(outcomes.filter((o) => o.slug === "steady-eeeeeeee").every((o) => o.kind === "stored")).toBe(true);
      const doomed = outcomes.filter((o) => o.slug === "doomed-dddddddd");
      expect(doomed.every((o) => o.kind === "stored" || o.kind === "unknown_endpoint")).toBe(true);
      const afterDelete = await Promise.all(Array.from({ length: 10 }, () => writer.write(request("doomed-dddddddd"))));
      expect(afterDelete.every((r) => r.kind === "unknown_endpoint")).toBe(true);
      // The delete queued the purge of its events in the same transaction; the purge (run here as its job would) leaves none.
      expect(await db.query("select 1 from jobs where kind = 'purge_endpoint' and key = $1", [doomedId])).toHaveLength(1);
      while ((await purgeEndpointEvents(pool, doomedId!, 7)) > 0);
      expect(await db.query("select 1 from events where endpoint_id = $1", [doomedId])).toHaveLength(0);
      // Its deliveries (forwarding's queue) go with its events: nothing of it is left to claim.
      expect(await db.query("select 1 from deliveries where endpoint_id = $1", [doomedId])).toHaveLength(0);
    } finally {
      await orm.close(true);
    }
  });

  it("rejects every caller of a batch when the database is unreachable", async () => {
    const deadPool = createPool({ databaseUrl: "postgres://x@127.0.0.1:1/none" });
    const writer = new GroupCommitWriter(deadPool);
    await expect(writer.write(request("any-ffffffff"))).rejects.toThrow();
    await deadPool.end();
  });
});

interface Row {
  method: string;
  path: string;
  query: string;
  headers: HeaderList;
  body: Buffer;
  content_type: string | null;
  source: string;
  event_type: string;
}

describe("group commit writer with text PostgreSQL refuses", () => {
  it("stores every text field with NUL and lone surrogates replaced, in one batch with an ordinary neighbour", async () => {
    const slug = "poison-aaaaaaaa";
    await insertEndpoint(slug);
    const writer = new GroupCommitWriter(pool);
    // The body is bytes, kept exactly: only text is sanitised.
    const body = Buffer.from([0, 0xff, 0xd8]);
    const poisoned = request(slug, body, {
      method: "PO\u0000ST",
      path: "/a\ud800",
      query: "q=\udc00",
      headers: [["X-Nul", "a\u0000b"], ["X-Surrogate\ud83d", "\ud83d"], ["X-Emoji", "\u{1F600}"]],
      contentType: "text/plain\u0000",
      clientIp: "\ud800",
      source: "src\u0000",
      eventType: "type\udbff",
    });
    const neighbour = request(slug, body, { eventType: "ok" });
    const results = await Promise.all([writer.write(poisoned), writer.write(neighbour)]);
    expect(results.map((result) => result.kind)).toEqual(["stored", "stored"]);
    const [row] = await db.query<Row>("select * from events where id = $1", [poisoned.id]);
    expect(row).toMatchObject({
      method: "PO\uFFFDST",
      path: "/a\uFFFD",
      query: "q=\uFFFD",
      headers: [["X-Nul", "a\uFFFDb"], ["X-Surrogate\uFFFD", "\uFFFD"], ["X-Emoji", "\u{1F600}"]],
      content_type: "text/plain\uFFFD",
      source: "src\uFFFD",
      event_type: "type\uFFFD",
    });
    expect(row!.body.equals(poisoned.body)).toBe(true);
    const [other] = await db.query<Row>("select * from events where id = $1", [neighbour.id]);
    expect(other).toMatchObject({ method: "POST", event_type: "ok", headers: [["Content-Type", "application/json"]] });
    // Both rows went in the same statement: nothing was retried one by one.
    const transactions = await db.query<{ n: number }>("select count(distinct xmin::text)::int as n from events where id = any($1::uuid[])", [[poisoned.id, neighbour.id]]);
    expect(transactions[0]!.n).toBe(1);
  });
});
