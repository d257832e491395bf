import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { uuidv7 } from "@rehook/core";
import { createTestDatabase, type TestDatabase } from "../../../tooling/vitest/src/postgres.js";
import { createOrm, createPool, deleteOwnedEndpoint, GroupCommitWriter, type CapturedRequest, type Pool } from "../src/index.js";

let db: TestDatabase;
let pool: Pool;
let userId: string;

async function insertEndpoint(slug: string, destination: string | null = null): Promise<string> {
  const id = uuidv7();
  await db.query("insert into endpoints (id, user_id, name, slug, destination_url, secret) values ($1, $2, $3, $4, $5, 'whsec_x')", [id, userId, slug, slug, destination]);
  return id;
}

function request(slug: string, body = "{}"): CapturedRequest {
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
  };
}

beforeAll(async () => {
  db = await createTestDatabase();
  pool = createPool({ databaseUrl: db.url, max: 4 });
  userId = uuidv7();
  await db.query("insert into users (id, email, password_hash) values ($1, 'w@example.com', 'x')", [userId]);
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
    expect(results[0]).toMatchObject({ kind: "stored", status: "pending", leased: true });
    expect(results[1]).toMatchObject({ kind: "stored", status: "captured", leased: false });
    room = false;
    const later = request("leased-ffffffff");
    expect(await writer.write(later)).toMatchObject({ kind: "stored", status: "pending", leased: false });

    const rows = await db.query<{ id: string; leased_for_s: number | null; attempts: number }>(
      "select id, extract(epoch from lease_expires_at - now())::float8 as leased_for_s, attempts from events where id = any($1::uuid[])",
      [[forwarded.id, captured.id, later.id]],
    );
    const byId = new Map(rows.map((row) => [row.id, row]));
    expect(byId.get(forwarded.id)!.leased_for_s).toBeGreaterThan(50);
    expect(byId.get(forwarded.id)!.attempts).toBe(1);
    expect(byId.get(captured.id)).toMatchObject({ leased_for_s: null, attempts: 0 });
    expect(byId.get(later.id)).toMatchObject({ leased_for_s: null, attempts: 0 });
  });

  it("a delete racing captures fails only the deleted endpoint's captures and leaves none of its events", async () => {
    const doomedId = await insertEndpoint("doomed-dddddddd");
    await insertEndpoint("steady-eeeeeeee");
    const writer = new GroupCommitWriter(pool, { maxRows: 20 });
    const committedBefore = await Promise.all(Array.from({ length: 50 }, () => writer.write(request("doomed-dddddddd"))));
    expect(committedBefore.every((r) => r.kind === "stored")).toBe(true);

    const orm = await createOrm({ databaseUrl: db.url, poolSize: 2 });
    try {
      const writes: Array<Promise<{ slug: string; kind: string }>> = [];
      let deletion: Promise<string | undefined> | undefined;
      for (let i = 0; i < 400; i += 1) {
        const slug = i % 2 === 0 ? "doomed-dddddddd" : "steady-eeeeeeee";
        writes.push(writer.write(request(slug)).then((r) => ({ slug, kind: r.kind })));
        if (i === 200) {
          await new Promise((resolve) => setImmediate(resolve)); // let the first batches go out
          deletion = deleteOwnedEndpoint(orm.em.fork(), userId, { slug: "doomed-dddddddd" });
        }
      }
      const outcomes = await Promise.all(writes);
      expect(await deletion).toBe(doomedId);
      expect(outcomes.filter((o) => o.slug === "steady-eeeeeeee").every((o) => o.kind === "stored")).toBe(true);
      const doomed = outcomes.filter((o) => o.slug === "doomed-dddddddd");
      expect(doomed.every((o) => o.kind === "stored" || o.kind === "unknown_endpoint")).toBe(true);
      const afterDelete = await Promise.all(Array.from({ length: 10 }, () => writer.write(request("doomed-dddddddd"))));
      expect(afterDelete.every((r) => r.kind === "unknown_endpoint")).toBe(true);
      expect(await db.query("select 1 from events where endpoint_id = $1", [doomedId])).toHaveLength(0);
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
